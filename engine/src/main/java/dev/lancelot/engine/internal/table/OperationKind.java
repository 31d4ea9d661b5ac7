package dev.lancelot.engine.internal.table;

import dev.lancelot.engine.internal.format.proto.TransactionProtos.Transaction;
import java.util.Locale;

/**
 * The kind of a transaction's operation, including the operations this project only needs to
 * recognise (by their field number in {@code Transaction.operation}) to judge conflicts.
 */
public enum OperationKind {
  APPEND(100),
  DELETE(101),
  OVERWRITE(102),
  CREATE_INDEX(103),
  REWRITE(104),
  MERGE(105),
  RESTORE(106),
  RESERVE_FRAGMENTS(107),
  UPDATE(108),
  PROJECT(109),
  UPDATE_CONFIG(110),
  DATA_REPLACEMENT(111),
  UPDATE_MEM_WAL_STATE(112),
  CLONE(113),
  UPDATE_BASES(114),
  UNKNOWN(-1);

  private final int fieldNumber;

  OperationKind(int fieldNumber) {
    this.fieldNumber = fieldNumber;
  }

  public static OperationKind of(Transaction txn) {
    switch (txn.getOperationCase()) {
      case APPEND:
        return APPEND;
      case DELETE:
        return DELETE;
      case OVERWRITE:
        return OVERWRITE;
      case CREATE_INDEX:
        return CREATE_INDEX;
      case REWRITE:
        return REWRITE;
      case RESTORE:
        return RESTORE;
      case RESERVE_FRAGMENTS:
        return RESERVE_FRAGMENTS;
      case UPDATE:
        return UPDATE;
      case MERGE:
        return MERGE;
      case PROJECT:
        return PROJECT;
      case UPDATE_CONFIG:
        return UPDATE_CONFIG;
      case CLONE:
        return CLONE;
      default:
        break;
    }
    for (OperationKind kind : values()) {
      if (kind.fieldNumber > 0 && txn.getUnknownFields().hasField(kind.fieldNumber)) {
        return kind;
      }
    }
    return UNKNOWN;
  }

  public String displayName() {
    return name().toLowerCase(Locale.ROOT).replace('_', ' ');
  }
}
