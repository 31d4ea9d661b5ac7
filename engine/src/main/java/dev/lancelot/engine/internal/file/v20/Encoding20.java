package dev.lancelot.engine.internal.file.v20;

import dev.lancelot.engine.internal.file.codec.DecodeException;
import dev.lancelot.engine.internal.file.proto.Encodings20Protos.ArrayEncoding;
import dev.lancelot.engine.internal.file.proto.Encodings20Protos.Buffer;
import dev.lancelot.engine.internal.file.proto.Encodings20Protos.Flat;
import dev.lancelot.engine.internal.file.proto.Encodings21Protos.CompressionScheme;
import java.util.ArrayList;
import java.util.List;

/**
 * The shapes of format 2.0 page encodings ({@code lance.encodings.ArrayEncoding} trees) that Lance
 * writes, parsed into flat descriptions; anything else is refused naming the encoding. Byte layouts
 * (all little-endian, buffers are page buffers by index):
 *
 * <pre>
 *   Flat(b)              [b bits x rows] values; b = 1 is a bitmap (LSB first); with
 *                        {@code compression} the whole buffer is compressed (see
 *                        {@link dev.lancelot.engine.internal.file.codec.GeneralCompression})
 *   Nullable.NoNull      values only
 *   Nullable.SomeNull    validity Flat(1) (1 = valid) and values
 *   Nullable.AllNull     no buffers
 *   FixedSizeList(d)     the items of each row, d per row (items are Nullable)
 *   Binary               indices: [u64 x rows] end of each value in the bytes buffer, plus
 *                        {@code null_adjustment} for null values; bytes: Flat(8)
 *   Dictionary           indices: [u8 x rows] 0 = null, k = item k - 1; items: Binary of
 *                        {@code num_dictionary_items} values, stored whole in the page
 *   List                 (list columns) offsets: [u64 x rows] end of each list's items, counted
 *                        from the page's first item, plus {@code null_offset_adjustment} for null
 *                        lists; the items are another column
 *   SimpleStruct         (struct columns) no buffers: structs are never null in 2.0
 *   PackedStruct         (packed struct columns: the struct and its members in one column)
 *                        buffer {@code buffer}: per row, each member's bytes in member order,
 *                        as its inner encoding stores one value (Flat of whole bytes,
 *                        FixedSizeList of them, a nested PackedStruct); no nulls
 * </pre>
 */
record Encoding20(
    Kind kind,
    FlatRef validity,
    FlatRef values,
    int dimension,
    FlatRef itemValidity,
    FlatRef indices,
    FlatRef bytes,
    long nullAdjustment,
    int numDictionaryItems,
    long numItems,
    PackedMember packed) {

  enum Kind {
    ALL_NULL,
    VALUES,
    FSL,
    BINARY,
    DICTIONARY,
    LIST,
    STRUCT,
    PACKED
  }

  /**
   * A member of a packed struct page (the page's struct itself is one): fixed-width values of
   * {@code bits} (a fixed-size list of {@code dimension} such items when {@code dimension > 0}),
   * or, when {@code members} is not null, a struct of those members stored one after the other.
   */
  record PackedMember(int bits, int dimension, List<PackedMember> members) {
    /** Bytes of one row of this member. */
    int rowBytes() {
      if (members != null) {
        int sum = 0;
        for (PackedMember m : members) {
          sum += m.rowBytes();
        }
        return sum;
      }
      return (dimension > 0 ? dimension : 1) * bits / 8;
    }
  }

  /** A fixed-width page buffer: its index, bits per value and compression (null: none). */
  record FlatRef(int buffer, int bits, CompressionScheme compression) {}

  static Encoding20 parse(ArrayEncoding e) {
    switch (e.getArrayEncodingCase()) {
      case NULLABLE -> {
        var n = e.getNullable();
        return switch (n.getNullabilityCase()) {
          case ALL_NULLS ->
              new Encoding20(Kind.ALL_NULL, null, null, 0, null, null, null, 0, 0, 0, null);
          case NO_NULLS -> values(null, n.getNoNulls().getValues());
          case SOME_NULLS ->
              values(bitmap(n.getSomeNulls().getValidity()), n.getSomeNulls().getValues());
          default -> throw unsupported(e);
        };
      }
      case FLAT, FIXED_SIZE_LIST -> {
        return values(null, e);
      }
      case BINARY -> {
        var b = e.getBinary();
        return new Encoding20(
            Kind.BINARY,
            null,
            null,
            0,
            null,
            indices(b.getIndices()),
            flat(b.getBytes(), 8),
            b.getNullAdjustment(),
            0,
            0,
            null);
      }
      case DICTIONARY -> {
        var d = e.getDictionary();
        if (!d.getItems().hasBinary()) {
          throw unsupported(e);
        }
        var items = d.getItems().getBinary();
        // values: the dictionary's value ends; bytes: its bytes
        return new Encoding20(
            Kind.DICTIONARY,
            null,
            indices(items.getIndices()),
            0,
            null,
            indices(d.getIndices()),
            flat(items.getBytes(), 8),
            items.getNullAdjustment(),
            d.getNumDictionaryItems(),
            0,
            null);
      }
      case LIST -> {
        var l = e.getList();
        if (l.getNullOffsetAdjustment() <= 0) {
          throw DecodeException.corrupt(
              "format 2.0 list page with null offset adjustment " + l.getNullOffsetAdjustment());
        }
        return new Encoding20(
            Kind.LIST,
            null,
            null,
            0,
            null,
            indices(l.getOffsets()),
            null,
            l.getNullOffsetAdjustment(),
            0,
            l.getNumItems(),
            null);
      }
      case STRUCT -> {
        return new Encoding20(Kind.STRUCT, null, null, 0, null, null, null, 0, 0, 0, null);
      }
      case PACKED_STRUCT -> {
        Buffer b = e.getPackedStruct().getBuffer();
        if (b.getBufferType() != Buffer.BufferType.page) {
          throw DecodeException.unsupported(
              "format 2.0 packed struct values in " + b.getBufferType() + " buffers");
        }
        PackedMember struct = packedMember(e, e);
        long rowBits = 8L * struct.rowBytes();
        if (rowBits > 1 << 24) {
          throw DecodeException.unsupported("format 2.0 packed structs of " + rowBits + " bits");
        }
        return new Encoding20(
            Kind.PACKED,
            null,
            new FlatRef(b.getBufferIndex(), (int) rowBits, null),
            0,
            null,
            null,
            null,
            0,
            0,
            0,
            struct);
      }
      default -> throw unsupported(e);
    }
  }

  private static Encoding20 values(FlatRef validity, ArrayEncoding v) {
    if (v.hasFlat()) {
      return new Encoding20(Kind.VALUES, validity, flat(v, -1), 0, null, null, null, 0, 0, 0, null);
    }
    if (v.hasFixedSizeList()) {
      var fsl = v.getFixedSizeList();
      ArrayEncoding items = fsl.getItems();
      FlatRef itemValidity = null;
      if (items.hasNullable()) {
        var n = items.getNullable();
        switch (n.getNullabilityCase()) {
          case NO_NULLS -> items = n.getNoNulls().getValues();
          case SOME_NULLS -> {
            itemValidity = bitmap(n.getSomeNulls().getValidity());
            items = n.getSomeNulls().getValues();
          }
          default -> throw unsupported(v);
        }
      }
      if (!items.hasFlat() || fsl.getDimension() <= 0) {
        throw unsupported(v);
      }
      FlatRef itemValues = flat(items, -1);
      if (itemValues.bits() % 8 != 0 || itemValues.compression() != null) {
        throw unsupported(v);
      }
      return new Encoding20(
          Kind.FSL,
          validity,
          itemValues,
          fsl.getDimension(),
          itemValidity,
          null,
          null,
          0,
          0,
          0,
          null);
    }
    throw unsupported(v);
  }

  /**
   * A member of packed struct {@code whole}: fixed-width values (in a Nullable without nulls), a
   * fixed-size list of them, or a nested packed struct; byte-aligned and uncompressed.
   */
  private static PackedMember packedMember(ArrayEncoding e, ArrayEncoding whole) {
    if (e.hasNullable()) {
      if (!e.getNullable().hasNoNulls()) {
        throw unsupported(whole);
      }
      return packedMember(e.getNullable().getNoNulls().getValues(), whole);
    }
    if (e.hasPackedStruct()) {
      List<PackedMember> members = new ArrayList<>();
      for (ArrayEncoding inner : e.getPackedStruct().getInnerList()) {
        members.add(packedMember(inner, whole));
      }
      if (members.isEmpty()) {
        throw DecodeException.corrupt("format 2.0 packed struct without members");
      }
      return new PackedMember(0, 0, members);
    }
    Encoding20 v;
    try {
      v = values(null, e);
    } catch (DecodeException ex) {
      throw unsupported(whole);
    }
    if (v.values().compression() != null
        || v.values().bits() % 8 != 0
        || v.itemValidity() != null) {
      throw unsupported(whole);
    }
    return new PackedMember(v.values().bits(), v.kind() == Kind.FSL ? v.dimension() : 0, null);
  }

  /** Indices / offsets: a Flat, possibly wrapped in a Nullable without nulls. */
  private static FlatRef indices(ArrayEncoding e) {
    if (e.hasNullable() && e.getNullable().hasNoNulls()) {
      e = e.getNullable().getNoNulls().getValues();
    }
    FlatRef f = flat(e, -1);
    if (f.compression() != null
        || (f.bits() != 8 && f.bits() != 16 && f.bits() != 32 && f.bits() != 64)) {
      throw unsupported(e);
    }
    return f;
  }

  private static FlatRef bitmap(ArrayEncoding e) {
    FlatRef f = flat(e, 1);
    if (f.compression() != null) {
      throw unsupported(e);
    }
    return f;
  }

  /** A Flat encoding in a page buffer; {@code bits} is checked unless negative. */
  private static FlatRef flat(ArrayEncoding e, int bits) {
    if (!e.hasFlat()) {
      throw unsupported(e);
    }
    Flat f = e.getFlat();
    Buffer b = f.getBuffer();
    if (b.getBufferType() != Buffer.BufferType.page) {
      throw DecodeException.unsupported("format 2.0 values in " + b.getBufferType() + " buffers");
    }
    long bpv = f.getBitsPerValue();
    if (bpv <= 0 || bpv > 1 << 20 || (bpv != 1 && bpv % 8 != 0) || (bits > 0 && bpv != bits)) {
      throw DecodeException.corrupt("format 2.0 flat encoding with " + bpv + " bits per value");
    }
    CompressionScheme scheme = null;
    String name = f.hasCompression() ? f.getCompression().getScheme() : "";
    if (!name.isEmpty() && !name.equals("none")) {
      scheme =
          switch (name) {
            case "zstd" -> CompressionScheme.COMPRESSION_ALGORITHM_ZSTD;
            case "lz4" -> CompressionScheme.COMPRESSION_ALGORITHM_LZ4;
            default ->
                throw DecodeException.unsupported(
                    "format 2.0 buffer compression \"" + f.getCompression().getScheme() + "\"");
          };
    }
    return new FlatRef(b.getBufferIndex(), (int) bpv, scheme);
  }

  private static DecodeException unsupported(ArrayEncoding e) {
    return DecodeException.unsupported("format 2.0 encoding " + describe(e));
  }

  /** A compact description, e.g. {@code Nullable(Flat(64))}. */
  static String describe(ArrayEncoding e) {
    return switch (e.getArrayEncodingCase()) {
      case FLAT ->
          "Flat("
              + e.getFlat().getBitsPerValue()
              + (e.getFlat().hasCompression()
                  ? ", " + e.getFlat().getCompression().getScheme()
                  : "")
              + ")";
      case NULLABLE ->
          switch (e.getNullable().getNullabilityCase()) {
            case NO_NULLS -> "Nullable(" + describe(e.getNullable().getNoNulls().getValues()) + ")";
            case SOME_NULLS ->
                "Nullable(validity "
                    + describe(e.getNullable().getSomeNulls().getValidity())
                    + ", "
                    + describe(e.getNullable().getSomeNulls().getValues())
                    + ")";
            case ALL_NULLS -> "Nullable(all null)";
            default -> "Nullable(?)";
          };
      case FIXED_SIZE_LIST ->
          "FixedSizeList("
              + e.getFixedSizeList().getDimension()
              + ", "
              + describe(e.getFixedSizeList().getItems())
              + ")";
      case LIST -> "List(" + describe(e.getList().getOffsets()) + ")";
      case STRUCT -> "SimpleStruct";
      case BINARY ->
          "Binary("
              + describe(e.getBinary().getIndices())
              + ", "
              + describe(e.getBinary().getBytes())
              + ")";
      case DICTIONARY ->
          "Dictionary("
              + describe(e.getDictionary().getIndices())
              + ", "
              + describe(e.getDictionary().getItems())
              + ")";
      case PACKED_STRUCT -> {
        StringBuilder sb = new StringBuilder("PackedStruct(");
        for (int i = 0; i < e.getPackedStruct().getInnerCount(); i++) {
          sb.append(i == 0 ? "" : ", ").append(describe(e.getPackedStruct().getInner(i)));
        }
        yield sb.append(')').toString();
      }
      case ARRAYENCODING_NOT_SET -> "unset";
      default -> e.getArrayEncodingCase().name();
    };
  }
}
