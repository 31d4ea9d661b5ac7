package dev.lancelot.engine.internal.file.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancelot.engine.internal.file.proto.Encodings21Protos.CompressionScheme;
import io.airlift.compress.lz4.Lz4Compressor;
import io.airlift.compress.zstd.ZstdCompressor;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

class CodecsTest {
  static ByteBuffer le(byte[] b) {
    return ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
  }

  static ByteBuffer words(int typeBits, long[] words, int prefixWords, long prefix) {
    int bytes = typeBits / 8;
    ByteBuffer b =
        ByteBuffer.allocate((words.length + prefixWords) * bytes).order(ByteOrder.LITTLE_ENDIAN);
    for (int i = 0; i < prefixWords + words.length; i++) {
      long w = i < prefixWords ? prefix : words[i - prefixWords];
      switch (typeBits) {
        case 8 -> b.put(i, (byte) w);
        case 16 -> b.putShort(2 * i, (short) w);
        case 32 -> b.putInt(4 * i, (int) w);
        default -> b.putLong(8 * i, w);
      }
    }
    return b;
  }

  static long mask(int bits) {
    return bits == 64 ? -1L : (1L << bits) - 1;
  }

  @Test
  void fastLanesRoundTripsEveryTypeAndWidth() {
    Random r = new Random(1);
    for (int t : new int[] {8, 16, 32, 64}) {
      for (int w = 0; w <= t; w++) {
        long[] values = new long[1024];
        for (int i = 0; i < 1024; i++) {
          values[i] = r.nextLong() & mask(w);
        }
        ByteBuffer packed = words(t, FastLanes.pack(t, w, values), 0, 0);
        ByteBuffer out = ByteBuffer.allocate(1024 * t / 8).order(ByteOrder.LITTLE_ENDIAN);
        FastLanes.unpack(t, w, packed, 0, out, 0);
        FixedValues fv = new FixedValues(out, 0, t, 1024);
        for (int i = 0; i < 1024; i++) {
          assertThat(fv.getUnsigned(i))
              .as("T=%d W=%d i=%d", t, w, i)
              .isEqualTo(values[i] & mask(t));
        }
      }
    }
  }

  /**
   * The layout documented in LANCE-FORMAT-NOTES: word {@code LANES*w + lane} holds row w of a lane.
   */
  @Test
  void fastLanesFullWidthIsTheTransposedOrder() {
    long[] values = new long[1024];
    for (int i = 0; i < 1024; i++) {
      values[i] = i;
    }
    long[] packed = FastLanes.pack(32, 32, values);
    int[] order = {0, 4, 2, 6, 1, 5, 3, 7};
    for (int row = 0; row < 32; row++) {
      for (int lane = 0; lane < 32; lane++) {
        assertThat(packed[32 * row + lane]).isEqualTo(order[row / 8] * 16 + (row % 8) * 128 + lane);
      }
    }
  }

  @Test
  void inlineBitpackingReadsTheWidthWordAndTruncates() {
    long[] values = new long[1024];
    for (int i = 0; i < 1000; i++) {
      values[i] = i % 37;
    }
    ByteBuffer chunk = words(64, FastLanes.pack(64, 6, values), 1, 6);
    FixedValues fv = Bitpacking.decodeInline(64, chunk, 1000);
    assertThat(fv.count()).isEqualTo(1000);
    for (int i = 0; i < 1000; i++) {
      assertThat(fv.getUnsigned(i)).isEqualTo(i % 37);
    }
    ByteBuffer bad = words(64, FastLanes.pack(64, 6, values), 1, 65);
    assertThatThrownBy(() -> Bitpacking.decodeInline(64, bad, 10))
        .isInstanceOf(DecodeException.class)
        .hasMessageContaining("bit width 65");
  }

  @Test
  void outOfLineBitpackingHandlesPaddedAndRawTails() {
    int n = 2048 + 100;
    long[] all = new long[n];
    for (int i = 0; i < n; i++) {
      all[i] = i % 2;
    }
    long[] block0 = FastLanes.pack(16, 1, Arrays.copyOfRange(all, 0, 1024));
    long[] block1 = FastLanes.pack(16, 1, Arrays.copyOfRange(all, 1024, 2048));
    long[] tailPadded =
        FastLanes.pack(16, 1, Arrays.copyOf(Arrays.copyOfRange(all, 2048, n), 1024));
    long[] padded = concat(block0, block1, tailPadded);
    long[] raw = concat(block0, block1, Arrays.copyOfRange(all, 2048, n));
    for (long[] layout : new long[][] {padded, raw}) {
      FixedValues fv = Bitpacking.decodeOutOfLine(16, 1, words(16, layout, 0, 0), n);
      for (int i = 0; i < n; i++) {
        assertThat(fv.getUnsigned(i)).isEqualTo(all[i]);
      }
    }
  }

  static long[] concat(long[]... parts) {
    return Arrays.stream(parts).flatMapToLong(Arrays::stream).toArray();
  }

  @Test
  void rleExpandsRunsAndRejectsZeroLengths() {
    ByteBuffer values = words(32, new long[] {7, -1, 3}, 0, 0);
    ByteBuffer lengths = le(new byte[] {(byte) 255, 2, 10});
    FixedValues fv = Rle.decode(32, values, lengths, 260);
    assertThat(fv.getUnsigned(0)).isEqualTo(7);
    assertThat(fv.getUnsigned(254)).isEqualTo(7);
    assertThat(fv.getUnsigned(255)).isEqualTo(0xFFFFFFFFL);
    assertThat(fv.getUnsigned(257)).isEqualTo(3);
    assertThatThrownBy(() -> Rle.decode(32, values, le(new byte[] {1, 0, 1}), 3))
        .isInstanceOf(DecodeException.class)
        .hasMessageContaining("length 0");
    assertThatThrownBy(() -> Rle.decode(32, values, lengths, 300))
        .isInstanceOf(DecodeException.class)
        .hasMessageContaining("expands to 267");
  }

  @Test
  void fsstExpandsSymbolsAndEscapes() {
    // two symbols: 0 = "lan", 1 = "ce"
    ByteBuffer table = ByteBuffer.allocate(2312).order(ByteOrder.LITTLE_ENDIAN);
    table.putLong(0, (0x46535354L << 32) | (1L << 24) | 2);
    table.put(8, "lan".getBytes(StandardCharsets.US_ASCII));
    table.put(16, "ce".getBytes(StandardCharsets.US_ASCII));
    table.put(24, (byte) 3).put(25, (byte) 2);
    Fsst fsst = Fsst.fromSymbolTable(table);
    byte[] data = {0, 1, (byte) 255, '!', 1, 0};
    VarValues compressed = VarValues.wrap(data, data.length, new int[] {0, 4, 4, 6}, 3);
    VarValues out = fsst.decode(compressed);
    assertThat(string(out, 0)).isEqualTo("lance!");
    assertThat(string(out, 1)).isEmpty();
    assertThat(string(out, 2)).isEqualTo("celan");
    ByteBuffer noMagic = ByteBuffer.allocate(16);
    assertThatThrownBy(() -> Fsst.fromSymbolTable(noMagic))
        .isInstanceOf(DecodeException.class)
        .hasMessageContaining("magic");
  }

  /**
   * A table of {@code n} random symbols of 1 to 8 bytes (some with zero bytes inside or at the
   * end).
   */
  static ByteBuffer fsstTable(Random r, int n, long[] symbols, int[] lengths) {
    ByteBuffer table = ByteBuffer.allocate(2312).order(ByteOrder.LITTLE_ENDIAN);
    table.putLong(0, (0x46535354L << 32) | (1L << 24) | n);
    for (int i = 0; i < n; i++) {
      lengths[i] = 1 + r.nextInt(8);
      symbols[i] = r.nextLong() & (-1L >>> (64 - 8 * lengths[i]));
      table.putLong(8 + 8 * i, symbols[i]);
      table.put(8 + 8 * n + i, (byte) lengths[i]);
    }
    return table;
  }

  @Test
  void fsstMatchesASimpleDecoderOnRandomCodesAndEscapes() {
    Random r = new Random(7);
    for (int n : new int[] {1, 37, 255}) {
      long[] symbols = new long[n];
      int[] lengths = new int[n];
      Fsst fsst = Fsst.fromSymbolTable(fsstTable(r, n, symbols, lengths));
      int values = 300;
      int[] offsets = new int[values + 1];
      java.io.ByteArrayOutputStream in = new java.io.ByteArrayOutputStream();
      java.io.ByteArrayOutputStream expected = new java.io.ByteArrayOutputStream();
      int[] expectedEnds = new int[values + 1];
      for (int v = 0; v < values; v++) {
        int codes = r.nextInt(40);
        for (int k = 0; k < codes; k++) {
          if (r.nextInt(10) == 0) {
            int literal = r.nextInt(256);
            in.write(255);
            in.write(literal);
            expected.write(literal);
          } else {
            int c = r.nextInt(n);
            in.write(c);
            for (int b = 0; b < lengths[c]; b++) {
              expected.write((int) (symbols[c] >>> (8 * b)));
            }
          }
        }
        offsets[v + 1] = in.size();
        expectedEnds[v + 1] = expected.size();
      }
      byte[] data = in.toByteArray();
      VarValues out = fsst.decode(VarValues.wrap(data, data.length, offsets, values));
      byte[] want = expected.toByteArray();
      for (int v = 0; v < values; v++) {
        assertThat(out.offset(v + 1) - out.offset(v))
            .isEqualTo(expectedEnds[v + 1] - expectedEnds[v]);
        byte[] got = new byte[expectedEnds[v + 1] - expectedEnds[v]];
        out.data().get((int) out.offset(v), got);
        assertThat(got).isEqualTo(Arrays.copyOfRange(want, expectedEnds[v], expectedEnds[v + 1]));
      }
      // the same, value by value through expandRun into an array that holds only a few values
      byte[] small = new byte[600];
      int[] ends = new int[values + 1];
      int[] starts = Arrays.copyOf(offsets, values);
      int[] stops = Arrays.copyOfRange(offsets, 1, values + 1);
      int from = 0;
      java.io.ByteArrayOutputStream runs = new java.io.ByteArrayOutputStream();
      while (from < values) {
        int to = fsst.expandRun(data, starts, stops, from, values, small, ends);
        assertThat(to).isGreaterThan(from);
        runs.write(small, 0, ends[to - from]);
        from = to;
      }
      assertThat(runs.toByteArray()).isEqualTo(want);
      // and the checked fallback kernel
      byte[] checked = new byte[8 * data.length + 8];
      int end = 0;
      for (int v = 0; v < values; v++) {
        end = fsst.expandChecked(data, offsets[v], offsets[v + 1], checked, end);
      }
      assertThat(Arrays.copyOf(checked, end)).isEqualTo(want);
    }
  }

  @Test
  void fsstRejectsUnknownCodesAndTrailingEscapes() {
    Random r = new Random(3);
    Fsst fsst = Fsst.fromSymbolTable(fsstTable(r, 10, new long[10], new int[10]));
    byte[] unknown = {1, 2, 10};
    assertThatThrownBy(() -> fsst.decode(VarValues.wrap(unknown, 3, new int[] {0, 3}, 1)))
        .isInstanceOf(DecodeException.class)
        .hasMessageContaining("code 10");
    byte[] trailing = {1, (byte) 255, 3, (byte) 255};
    assertThatThrownBy(() -> fsst.decode(VarValues.wrap(trailing, 4, new int[] {0, 2, 4}, 2)))
        .isInstanceOf(DecodeException.class)
        .hasMessageContaining("escape");
    byte[] out = new byte[24];
    assertThatThrownBy(() -> fsst.expand(unknown, 0, 3, out, 0))
        .isInstanceOf(DecodeException.class);
    assertThatThrownBy(() -> fsst.expandChecked(unknown, 0, 3, out, 0))
        .isInstanceOf(DecodeException.class);
    assertThatThrownBy(() -> fsst.expandChecked(trailing, 0, 4, new byte[40], 0))
        .isInstanceOf(DecodeException.class);
    // 8 bytes of room per code are required, and the value must lie inside its array
    assertThatThrownBy(() -> fsst.expand(unknown, 0, 3, out, 1))
        .isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> fsst.expand(unknown, 2, 4, out, 0))
        .isInstanceOf(IndexOutOfBoundsException.class);
  }

  static String string(VarValues v, int i) {
    byte[] b = new byte[(int) (v.offset(i + 1) - v.offset(i))];
    v.data().get((int) v.offset(i), b);
    return new String(b, StandardCharsets.UTF_8);
  }

  @Test
  void binaryBlocksInBothSchemes() {
    // standard: [u32 32][u32 start][offsets][bytes]
    ByteBuffer std = ByteBuffer.allocate(8 + 12 + 5).order(ByteOrder.LITTLE_ENDIAN);
    std.putInt(32)
        .putInt(20)
        .putInt(0)
        .putInt(2)
        .putInt(5)
        .put("abxyz".getBytes(StandardCharsets.US_ASCII));
    VarValues v = BlockCodecs.binaryBlock(std, 2);
    assertThat(string(v, 0)).isEqualTo("ab");
    assertThat(string(v, 1)).isEqualTo("xyz");
    // old: [u8 32][u32 n][u32 start][offsets][bytes]
    ByteBuffer old = ByteBuffer.allocate(9 + 12 + 5).order(ByteOrder.LITTLE_ENDIAN);
    old.put((byte) 32)
        .putInt(2)
        .putInt(21)
        .putInt(0)
        .putInt(2)
        .putInt(5)
        .put("abxyz".getBytes(StandardCharsets.US_ASCII));
    VarValues o = BlockCodecs.binaryBlock(old, 2);
    assertThat(string(o, 1)).isEqualTo("xyz");
  }

  @Test
  void generalCompressionFraming() {
    byte[] input =
        "lance lance lance lance lance lance lance".repeat(50).getBytes(StandardCharsets.UTF_8);
    byte[] z = new byte[new ZstdCompressor().maxCompressedLength(input.length)];
    int zn = new ZstdCompressor().compress(input, 0, input.length, z, 0, z.length);
    ByteBuffer prefixed = ByteBuffer.allocate(8 + zn).order(ByteOrder.LITTLE_ENDIAN);
    prefixed.putLong(input.length).put(z, 0, zn);
    assertThat(
            GeneralCompression.decompress(
                CompressionScheme.COMPRESSION_ALGORITHM_ZSTD, prefixed, 0, 8 + zn))
        .isEqualTo(input);
    assertThat(
            GeneralCompression.decompress(
                CompressionScheme.COMPRESSION_ALGORITHM_ZSTD, le(Arrays.copyOf(z, zn)), 0, zn))
        .as("raw zstd frame")
        .isEqualTo(input);
    byte[] l = new byte[new Lz4Compressor().maxCompressedLength(input.length)];
    int ln = new Lz4Compressor().compress(input, 0, input.length, l, 0, l.length);
    ByteBuffer lz = ByteBuffer.allocate(4 + ln).order(ByteOrder.LITTLE_ENDIAN);
    lz.putInt(input.length).put(l, 0, ln);
    assertThat(
            GeneralCompression.decompress(
                CompressionScheme.COMPRESSION_ALGORITHM_LZ4, lz, 0, 4 + ln))
        .isEqualTo(input);
    ByteBuffer broken = ByteBuffer.allocate(8 + zn).order(ByteOrder.LITTLE_ENDIAN);
    broken.putLong(input.length).put(new byte[zn]);
    assertThatThrownBy(
            () ->
                GeneralCompression.decompress(
                    CompressionScheme.COMPRESSION_ALGORITHM_ZSTD, broken, 0, 8 + zn))
        .isInstanceOf(DecodeException.class);
  }
}
