package dev.lancelot.engine.file.codec;

/** Decodes the values of a variable-width full-zip page once they are unzipped. */
@FunctionalInterface
public interface VariablePerValueDecoder {
  VarValues decode(VarValues stored);
}
