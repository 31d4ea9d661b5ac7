package dev.lancelot.engine.internal.index.text;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Decodes the posting lists of a Lance inverted index partition. A token's list is a list of blocks
 * of up to 128 documents, each starting with the block's maximum score (float32). A full block then
 * holds its first document id (u32), a bit width and the 128 document ids as deltas from their
 * predecessors bit-packed in four interleaved 32-bit lanes (the layout of the Rust {@code
 * bitpacking} crate's {@code BitPacker4x}), then a bit width and the 128 frequencies packed the
 * same way. The last, partial block holds its ids and frequencies by the partition's tail codec:
 * {@code fixed32_v1} (u32 ids, then u32 frequencies) or {@code varint_delta_v1} (LEB128 id deltas,
 * then LEB128 frequencies).
 */
final class PostingBlocks {
  static final int BLOCK = 128;

  /** The tail codecs Lance writes. */
  enum TailCodec {
    FIXED32,
    VARINT_DELTA;

    static TailCodec of(String name) {
      if (name == null || name.equals("fixed32_v1")) {
        return FIXED32;
      } else if (name.equals("varint_delta_v1")) {
        return VARINT_DELTA;
      }
      throw new IllegalArgumentException("posting tail codec \"" + name + "\" is unknown");
    }
  }

  private PostingBlocks() {}

  /**
   * Decodes {@code blocks} of a list of {@code length} documents into {@code docs} and {@code
   * freqs} (each of {@code length} entries).
   */
  static void decode(byte[][] blocks, int length, TailCodec tail, int[] docs, int[] freqs) {
    int full = length / BLOCK;
    int rest = length % BLOCK;
    int expected = full + (rest > 0 ? 1 : 0);
    if (blocks.length != expected) {
      throw new IllegalArgumentException(
          "a list of " + length + " documents has " + blocks.length + " blocks, not " + expected);
    }
    int[] values = new int[BLOCK];
    for (int b = 0; b < full; b++) {
      ByteBuffer in = ByteBuffer.wrap(blocks[b]).order(ByteOrder.LITTLE_ENDIAN);
      in.position(4);
      int first = in.getInt();
      unpack(in, values);
      int prev = first;
      for (int i = 0; i < BLOCK; i++) {
        prev += values[i];
        docs[b * BLOCK + i] = prev;
      }
      unpack(in, values);
      System.arraycopy(values, 0, freqs, b * BLOCK, BLOCK);
      if (in.hasRemaining()) {
        throw new IllegalArgumentException("a full posting block has trailing bytes");
      }
    }
    if (rest > 0) {
      ByteBuffer in = ByteBuffer.wrap(blocks[full]).order(ByteOrder.LITTLE_ENDIAN);
      in.position(4);
      int base = full * BLOCK;
      if (tail == TailCodec.FIXED32) {
        for (int i = 0; i < rest; i++) {
          docs[base + i] = in.getInt();
        }
        for (int i = 0; i < rest; i++) {
          freqs[base + i] = in.getInt();
        }
      } else {
        int prev = 0;
        for (int i = 0; i < rest; i++) {
          prev = i == 0 ? varint(in) : prev + varint(in);
          docs[base + i] = prev;
        }
        for (int i = 0; i < rest; i++) {
          freqs[base + i] = varint(in);
        }
      }
      if (in.hasRemaining()) {
        throw new IllegalArgumentException("a posting tail block has trailing bytes");
      }
    }
  }

  /** Reads a bit width then 128 values packed in four interleaved lanes of 32-bit words. */
  static void unpack(ByteBuffer in, int[] out) {
    int bits = in.get() & 0xFF;
    if (bits > 32) {
      throw new IllegalArgumentException("a posting block packs values in " + bits + " bits");
    }
    int start = in.position();
    int bytes = bits * BLOCK / 8;
    if (in.remaining() < bytes) {
      throw new IllegalArgumentException("a posting block is truncated");
    }
    long mask = bits == 32 ? 0xFFFFFFFFL : (1L << bits) - 1;
    for (int lane = 0; lane < 4; lane++) {
      for (int j = 0; j < BLOCK / 4; j++) {
        long bit = (long) j * bits;
        int word = (int) (bit >>> 5);
        int shift = (int) (bit & 31);
        long v = in.getInt(start + 16 * word + 4 * lane) & 0xFFFFFFFFL;
        v >>>= shift;
        if (shift + bits > 32) {
          long next = in.getInt(start + 16 * (word + 1) + 4 * lane) & 0xFFFFFFFFL;
          v |= next << (32 - shift);
        }
        out[4 * j + lane] = (int) (v & mask);
      }
    }
    in.position(start + bytes);
  }

  private static int varint(ByteBuffer in) {
    int value = 0;
    for (int shift = 0; shift < 35; shift += 7) {
      int b = in.get() & 0xFF;
      value |= (b & 0x7F) << shift;
      if ((b & 0x80) == 0) {
        return value;
      }
    }
    throw new IllegalArgumentException("a posting tail block holds an over-long varint");
  }
}
