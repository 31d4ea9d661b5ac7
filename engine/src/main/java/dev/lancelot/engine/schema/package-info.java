/**
 * Lance schemas: {@link dev.lancelot.engine.schema.LanceSchema} and {@link
 * dev.lancelot.engine.schema.LanceField}, convertible to and from Arrow schemas and the flattened
 * {@code lance.file.Field} protos of manifests and data files, with Lance's field id assignment
 * (pre-order from 0), logical type strings ({@link dev.lancelot.engine.schema.LogicalTypes}) and
 * lookups and projections.
 */
package dev.lancelot.engine.schema;
