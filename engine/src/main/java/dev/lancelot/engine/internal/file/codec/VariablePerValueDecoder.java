package dev.lancelot.engine.internal.file.codec;

/** Decodes the values of a variable-width full-zip page once they are unzipped. */
@FunctionalInterface
public interface VariablePerValueDecoder {
  /**
   * The values of the unzipped stored values: variable-width values, or the structs of a packed
   * struct.
   */
  Values decode(VarValues stored);

  /**
   * The same decoding one value at a time, straight from the stored bytes, when every value decodes
   * on its own (plain or FSST values); null otherwise.
   */
  default ValueExpander expander() {
    return null;
  }
}
