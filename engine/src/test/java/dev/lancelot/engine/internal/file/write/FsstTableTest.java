package dev.lancelot.engine.internal.file.write;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancelot.engine.internal.file.codec.Fsst;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;

/**
 * The writer's FSST: symbol tables built from a page sample compress every value so that the
 * reader's decoder ({@link Fsst}) gives back the same bytes, compress text well, and are chosen for
 * a page by Lance 7's thresholds.
 */
class FsstTableTest {
  private static final String[] WORDS = {
    "lance", "file", "column", "page", "chunk", "value", "spark", "vector", "index", "scan"
  };

  /** Values concatenated, with the end of each (the {@code ends} array VarItems keeps). */
  record Page(byte[] data, long[] ends) {
    static Page of(List<byte[]> values) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      long[] ends = new long[values.size()];
      for (int i = 0; i < values.size(); i++) {
        out.writeBytes(values.get(i));
        ends[i] = out.size();
      }
      return new Page(out.toByteArray(), ends);
    }

    byte[] value(int i) {
      int from = i == 0 ? 0 : (int) ends[i - 1];
      return Arrays.copyOfRange(data, from, (int) ends[i]);
    }
  }

  static List<byte[]> values(int n, IntFunction<String> f) {
    List<byte[]> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(f.apply(i).getBytes(StandardCharsets.UTF_8));
    }
    return out;
  }

  static String words(Random r, int n) {
    StringBuilder sb = new StringBuilder();
    for (int w = 0; w < n; w++) {
      sb.append(w == 0 ? "" : " ").append(WORDS[r.nextInt(WORDS.length)]);
    }
    return sb.toString();
  }

  /** Compresses the page's values with {@link FsstPage}, decodes them with the reader's decoder. */
  static long roundTrip(Page page) {
    FsstPage fsst = FsstPage.choose(page.data(), page.ends(), 0, page.ends().length, 4);
    assertThat(fsst).as("FSST chosen").isNotNull();
    assertThat(fsst.data).as("compression on").isNotNull();
    assertThat(fsst.table).hasSize(FsstTable.SERIALIZED_BYTES);
    Fsst decoder = Fsst.fromSymbolTable(ByteBuffer.wrap(fsst.table));
    assertThat(decoder.enabled()).isTrue();
    for (int i = 0; i < page.ends().length; i++) {
      int from = (int) fsst.offsets[i];
      int to = (int) fsst.offsets[i + 1];
      byte[] out = new byte[(int) decoder.room(to - from)];
      int end = decoder.expand(fsst.data, from, to, out, 0);
      assertThat(Arrays.copyOf(out, end)).as("value %d", i).isEqualTo(page.value(i));
    }
    return fsst.offsets[page.ends().length];
  }

  @Test
  void wordsCompressToUnderAThirdAndDecodeExactly() {
    Random r = new Random(1);
    Page page = Page.of(values(3000, i -> words(r, 20 + r.nextInt(30))));
    long compressed = roundTrip(page);
    assertThat(compressed).isLessThan(page.data().length / 3);
  }

  @Test
  void everyByteValueAndZeroBytesDecodeExactly() {
    Random r = new Random(2);
    List<byte[]> values = new ArrayList<>();
    for (int i = 0; i < 4000; i++) {
      byte[] v = new byte[r.nextInt(40)];
      for (int j = 0; j < v.length; j++) {
        // half the values from a small alphabet with 0 in it, half of any byte
        v[j] = (byte) (i % 2 == 0 ? r.nextInt(4) : r.nextInt(256));
      }
      values.add(v);
    }
    values.add(new byte[] {'a', 0});
    values.add(new byte[] {'a'});
    values.add(new byte[] {0, 0, 0, 0, 0, 0, 0, 0, 0});
    roundTrip(Page.of(values));
  }

  @Test
  void nonAsciiEmptyAndLongValuesDecodeExactly() {
    Random r = new Random(3);
    String[] alphabet = {"ä", "€", "日本", "𝄞", "ß", "a", " "};
    Page page =
        Page.of(
            values(
                1500,
                i -> {
                  if (i % 7 == 0) {
                    return "";
                  }
                  StringBuilder sb = new StringBuilder();
                  int n = i % 100 == 1 ? 3000 : 1 + r.nextInt(30);
                  for (int k = 0; k < n; k++) {
                    sb.append(alphabet[r.nextInt(alphabet.length)]);
                  }
                  return sb.toString();
                }));
    long compressed = roundTrip(page);
    assertThat(compressed).isLessThan(page.data().length);
  }

  @Test
  void theSameValuesGetTheSameTable() {
    Random r = new Random(4);
    Page page = Page.of(values(2000, i -> "user-" + Long.toHexString(r.nextLong())));
    FsstPage a = FsstPage.choose(page.data(), page.ends(), 0, 2000, 4);
    FsstPage b = FsstPage.choose(page.data(), page.ends(), 0, 2000, 4);
    assertThat(a.table).isEqualTo(b.table);
    assertThat(a.data).isEqualTo(b.data);
  }

  @Test
  void aPageInsideTheBufferCompressesOnlyItsItems() {
    Random r = new Random(5);
    Page page = Page.of(values(6000, i -> words(r, 3 + r.nextInt(10))));
    FsstPage fsst = FsstPage.choose(page.data(), page.ends(), 2500, 3000, 4);
    Fsst decoder = Fsst.fromSymbolTable(ByteBuffer.wrap(fsst.table));
    for (int i = 0; i < 3000; i++) {
      int from = (int) fsst.offsets[i];
      int to = (int) fsst.offsets[i + 1];
      byte[] out = new byte[(int) decoder.room(to - from)];
      int end = decoder.expand(fsst.data, from, to, out, 0);
      assertThat(Arrays.copyOf(out, end)).isEqualTo(page.value(2500 + i));
    }
  }

  /**
   * Lance 7's thresholds, measured against lance-core 7.0.0 (2,340 ten-byte strings: none; 2,341:
   * FSST with compression off; values of 32 KiB: compressed; longest value under 5 bytes: none).
   */
  @Test
  void lanceThresholdsDecideFsstAndCompression() {
    Page below = Page.of(values(2340, i -> String.format("%010d", i)));
    assertThat(FsstPage.choose(below.data(), below.ends(), 0, 2340, 4)).isNull();

    Page off = Page.of(values(2341, i -> String.format("%010d", i)));
    FsstPage offPage = FsstPage.choose(off.data(), off.ends(), 0, 2341, 4);
    assertThat(offPage).isNotNull();
    assertThat(offPage.data).isNull();
    long header = ByteBuffer.wrap(offPage.table).order(ByteOrder.LITTLE_ENDIAN).getLong(0);
    assertThat(header).isEqualTo(0x46535354L << 32);
    assertThat(Fsst.fromSymbolTable(ByteBuffer.wrap(offPage.table)).enabled()).isFalse();

    Page on = Page.of(values(3277, i -> String.format("%010d", i)));
    assertThat(FsstPage.choose(on.data(), on.ends(), 0, 3277, 4).data).isNotNull();

    Page shortValues = Page.of(values(20_000, i -> String.format("%04d", i % 10_000)));
    assertThat(FsstPage.choose(shortValues.data(), shortValues.ends(), 0, 20_000, 4)).isNull();

    // 64-bit offsets count double: 2,000 values of 10 bytes reach the threshold with them
    Page large = Page.of(values(2000, i -> String.format("%010d", i)));
    assertThat(FsstPage.choose(large.data(), large.ends(), 0, 2000, 4)).isNull();
    assertThat(FsstPage.choose(large.data(), large.ends(), 0, 2000, 8)).isNotNull();
  }
}
