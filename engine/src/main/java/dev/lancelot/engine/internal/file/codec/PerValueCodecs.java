package dev.lancelot.engine.internal.file.codec;

import dev.lancelot.engine.internal.file.proto.Encodings21Protos.CompressionScheme;
import dev.lancelot.engine.internal.file.proto.Encodings21Protos.CompressiveEncoding;
import dev.lancelot.engine.internal.file.proto.Encodings21Protos.FixedSizeList;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * Decoders of full-zip values, fixed-width and variable-width (see {@link Codecs#fixedPerValue} and
 * {@link Codecs#variablePerValue}).
 */
final class PerValueCodecs {
  private PerValueCodecs() {}

  /** Decoder of fixed-width full-zip values. */
  static FixedPerValueDecoder fixedPerValue(CompressiveEncoding e) {
    switch (e.getCompressionCase()) {
      case FLAT:
        {
          int bits = Codecs.flatBits(e);
          Codecs.rejectBufferCompression(e);
          return new FixedPerValueDecoder() {
            @Override
            public int bitsPerValue() {
              return bits;
            }

            @Override
            public Values decode(ByteBuffer data, int offset, int n) {
              return new FixedValues(data, offset, bits, n);
            }
          };
        }
      case FIXED_SIZE_LIST:
        return fixedSizeListPerValue(e);
      default:
        throw DecodeException.unsupported("full-zip fixed-width encoding " + Codecs.describe(e));
    }
  }

  private static FixedPerValueDecoder fixedSizeListPerValue(CompressiveEncoding e) {
    List<FixedSizeList> layers = new ArrayList<>();
    CompressiveEncoding cur = e;
    while (cur.hasFixedSizeList()) {
      layers.add(cur.getFixedSizeList());
      cur = cur.getFixedSizeList().getValues();
    }
    if (!cur.hasFlat() || Codecs.flatBits(cur) % 8 != 0) {
      throw DecodeException.unsupported("full-zip fixed-width encoding " + Codecs.describe(e));
    }
    int itemBits = Codecs.flatBits(cur);
    long cum = 1;
    long validityBytes = 0;
    boolean anyValidity = false;
    long[] layerBits = new long[layers.size()];
    for (int i = 0; i < layers.size(); i++) {
      cum *= layers.get(i).getItemsPerValue();
      layerBits[i] = cum;
      if (layers.get(i).getHasValidity()) {
        validityBytes += (cum + 7) / 8;
        anyValidity = true;
      }
    }
    long dataBytes = cum * itemBits / 8;
    long totalBits = (validityBytes + dataBytes) * 8;
    if (totalBits > Integer.MAX_VALUE) {
      throw DecodeException.unsupported("full-zip values of " + totalBits + " bits");
    }
    boolean hasValidity = anyValidity;
    int validityTotal = (int) validityBytes;
    return new FixedPerValueDecoder() {
      @Override
      public int bitsPerValue() {
        return (int) totalBits;
      }

      @Override
      public Values decode(ByteBuffer data, int offset, int n) {
        if (!hasValidity) {
          return Codecs.buildFsl(layers, new ByteBuffer[layers.size()], data, offset, itemBits, n);
        }
        return unzipFslValidity(
            layers, layerBits, validityTotal, (int) dataBytes, itemBits, data, offset, n);
      }
    };
  }

  /**
   * Splits values stored as {@code [validity bytes of each layer][item bytes]} into bitmaps and
   * items.
   */
  private static Values unzipFslValidity(
      List<FixedSizeList> layers,
      long[] layerBits,
      int validityBytes,
      int dataBytes,
      int itemBits,
      ByteBuffer data,
      int offset,
      int n) {
    int stride = validityBytes + dataBytes;
    if (offset + (long) stride * n > data.limit()) {
      throw DecodeException.corrupt(
          "full-zip buffer too short for " + n + " values of " + stride + " bytes");
    }
    ByteBuffer[] validity = new ByteBuffer[layers.size()];
    for (int i = 0; i < layers.size(); i++) {
      if (layers.get(i).getHasValidity()) {
        validity[i] =
            ByteBuffer.allocate((int) ((layerBits[i] * n + 7) / 8)).order(ByteOrder.LITTLE_ENDIAN);
      }
    }
    byte[] items = new byte[dataBytes * n];
    for (int r = 0; r < n; r++) {
      int pos = offset + r * stride;
      for (int i = 0; i < layers.size(); i++) {
        if (validity[i] != null) {
          int bits = (int) layerBits[i];
          if (bits % 8 == 0) {
            validity[i].put(r * (bits / 8), data, pos, bits / 8);
          } else {
            copyBits(data, pos, validity[i], (long) r * bits, bits);
          }
          pos += (bits + 7) / 8;
        }
      }
      data.get(pos, items, r * dataBytes, dataBytes);
    }
    return Codecs.buildFsl(
        layers, validity, ByteBuffer.wrap(items).order(ByteOrder.LITTLE_ENDIAN), 0, itemBits, n);
  }

  /**
   * Copies {@code bits} bits from byte {@code srcByte} (bit 0) to bit {@code dstBit} of {@code
   * dst}.
   */
  private static void copyBits(ByteBuffer src, int srcByte, ByteBuffer dst, long dstBit, int bits) {
    for (int b = 0; b < bits; b++) {
      if ((src.get(srcByte + (b >>> 3)) & (1 << (b & 7))) != 0) {
        long d = dstBit + b;
        int idx = (int) (d >>> 3);
        dst.put(idx, (byte) (dst.get(idx) | (1 << (d & 7))));
      }
    }
  }

  /** Decoder of variable-width full-zip values. */
  static VariablePerValueDecoder variablePerValue(CompressiveEncoding e) {
    switch (e.getCompressionCase()) {
      case VARIABLE:
        return expanding(v -> v, ValueExpander.VERBATIM);
      case FSST:
        {
          Fsst fsst = Fsst.fromSymbolTable(e.getFsst().getSymbolTable().asReadOnlyByteBuffer());
          VariablePerValueDecoder inner = variablePerValue(e.getFsst().getValues());
          VariablePerValueDecoder whole = v -> fsst.decode(Codecs.asVar(inner.decode(v), e));
          return inner.expander() == ValueExpander.VERBATIM ? expanding(whole, fsst) : whole;
        }
      case GENERAL:
        {
          CompressionScheme scheme = e.getGeneral().getCompression().getScheme();
          return v -> perValueDecompress(scheme, v);
        }
      case VARIABLE_PACKED_STRUCT:
        return PackedStructs.variablePerValue(e);
      default:
        throw DecodeException.unsupported("full-zip variable-width encoding " + Codecs.describe(e));
    }
  }

  private static VariablePerValueDecoder expanding(
      VariablePerValueDecoder whole, ValueExpander expander) {
    return new VariablePerValueDecoder() {
      @Override
      public Values decode(VarValues stored) {
        return whole.decode(stored);
      }

      @Override
      public ValueExpander expander() {
        return expander;
      }
    };
  }

  private static VarValues perValueDecompress(CompressionScheme scheme, VarValues stored) {
    int n = stored.count();
    int[] offsets = new int[n + 1];
    byte[][] parts = new byte[n][];
    long total = 0;
    for (int i = 0; i < n; i++) {
      int from = (int) stored.offset(i);
      int to = (int) stored.offset(i + 1);
      parts[i] =
          from == to ? new byte[0] : GeneralCompression.decompress(scheme, stored.data(), from, to);
      total += parts[i].length;
      if (total > Integer.MAX_VALUE - 16) {
        throw DecodeException.unsupported("more than 2 GiB of decompressed values in one read");
      }
      offsets[i + 1] = (int) total;
    }
    byte[] out = new byte[(int) total];
    for (int i = 0; i < n; i++) {
      System.arraycopy(parts[i], 0, out, offsets[i], parts[i].length);
    }
    return VarValues.wrap(out, out.length, offsets, n);
  }
}
