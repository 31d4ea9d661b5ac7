package dev.lancelot.engine.internal.index.text;

import java.nio.charset.StandardCharsets;
import java.util.OptionalLong;

/**
 * A read-only finite state transducer in the byte layout Lance's inverted index stores its token
 * set in ({@code token_set_format=fst}: the layout of version 2 and 3 transducers of the Rust
 * {@code fst} crate 0.4): a 16-byte header (format version, type), nodes written back to front, and
 * a footer (key count, root address, and from version 3 a 4-byte checksum). Each token maps to its
 * token id, the sum of the outputs along its path. Lookups only; malformed bytes fail with {@link
 * IllegalArgumentException}.
 */
final class TokenFst {
  /** Inputs a one-transition state can name in its state byte, by index - 1. */
  private static final byte[] COMMON_INPUTS =
      "te/oasripcnw.hlm-du012g=:bf3y5&_4v9678k%?xCDASFIBEjPTzRNM+LOqHGWUV,YKJZXQ;)(~[]$!'*@"
          .getBytes(StandardCharsets.US_ASCII);

  private static final int INDEX_THRESHOLD = 32;
  private static final int EMPTY_ADDRESS = 0;

  private final byte[] data;
  private final long version;
  private final int root;
  private final long keys;

  TokenFst(byte[] data) {
    if (data.length < 32) {
      throw new IllegalArgumentException("a token set of " + data.length + " bytes is too short");
    }
    this.data = data;
    this.version = u64(0);
    if (version < 2 || version > 3) {
      throw new IllegalArgumentException("token set format version " + version + " is unknown");
    }
    int end = version == 3 ? data.length - 4 : data.length;
    this.root = Math.toIntExact(u64(end - 8));
    this.keys = u64(end - 16);
    if (root >= end - 16) {
      throw new IllegalArgumentException("the token set's root address " + root + " is past it");
    }
  }

  /** How many tokens the set holds. */
  long size() {
    return keys;
  }

  /** The id of {@code token} (its UTF-8 bytes), if the set holds it. */
  OptionalLong get(String token) {
    byte[] key = token.getBytes(StandardCharsets.UTF_8);
    int addr = root;
    long out = 0;
    for (byte b : key) {
      if (addr == EMPTY_ADDRESS) {
        return OptionalLong.empty();
      }
      Node node = node(addr);
      int i = node.find(b & 0xFF);
      if (i < 0) {
        return OptionalLong.empty();
      }
      out += node.output(i);
      addr = node.target(i);
    }
    if (addr == EMPTY_ADDRESS) {
      return OptionalLong.of(out);
    }
    Node node = node(addr);
    return node.isFinal ? OptionalLong.of(out + node.finalOutput) : OptionalLong.empty();
  }

  private long u64(int at) {
    return unpack(at, 8);
  }

  private long unpack(int at, int bytes) {
    long v = 0;
    for (int i = 0; i < bytes; i++) {
      v |= (data[at + i] & 0xFFL) << (8 * i);
    }
    return v;
  }

  private Node node(int addr) {
    int state = data[addr] & 0xFF;
    switch (state >>> 6) {
      case 0b11:
        {
          int common = state & 0x3F;
          int inputLen = common == 0 ? 1 : 0;
          int input = common == 0 ? data[addr - 1] & 0xFF : COMMON_INPUTS[common - 1] & 0xFF;
          int end = addr - inputLen;
          return new OneTrans(input, 0, end - 1, false, 0);
        }
      case 0b10:
        {
          int common = state & 0x3F;
          int inputLen = common == 0 ? 1 : 0;
          int input = common == 0 ? data[addr - 1] & 0xFF : COMMON_INPUTS[common - 1] & 0xFF;
          int sizes = data[addr - inputLen - 1] & 0xFF;
          int tsize = sizes >>> 4;
          int osize = sizes & 0x0F;
          int at = addr - inputLen - 1 - tsize;
          int end = at - osize;
          long output = osize == 0 ? 0 : unpack(at - osize, osize);
          return new OneTrans(input, output, delta(at, tsize, end), false, 0);
        }
      default:
        return anyTrans(addr, state);
    }
  }

  private int delta(int at, int size, int end) {
    int d = Math.toIntExact(unpack(at, size));
    return d == EMPTY_ADDRESS ? EMPTY_ADDRESS : end - d;
  }

  private Node anyTrans(int addr, int state) {
    boolean isFinal = (state & 0b0100_0000) != 0;
    int stateN = state & 0x3F;
    int ntransLen = stateN == 0 ? 1 : 0;
    int ntrans;
    if (stateN != 0) {
      ntrans = stateN;
    } else {
      int n = data[addr - 1] & 0xFF;
      ntrans = n == 1 ? 256 : n;
    }
    int sizes = data[addr - ntransLen - 1] & 0xFF;
    int tsize = sizes >>> 4;
    int osize = sizes & 0x0F;
    int indexSize = version >= 2 && ntrans > INDEX_THRESHOLD ? 256 : 0;
    int transSize = ntrans + ntrans * tsize + indexSize;
    int outputsEnd = addr - ntransLen - 1 - transSize;
    long finalOutput = 0;
    if (isFinal && osize > 0) {
      finalOutput = unpack(outputsEnd - ntrans * osize - osize, osize);
    }
    int end = outputsEnd - ntrans * osize - (isFinal ? osize : 0);
    return new AnyTrans(
        addr, ntransLen, ntrans, tsize, osize, indexSize, end, isFinal, finalOutput);
  }

  private abstract static class Node {
    final boolean isFinal;
    final long finalOutput;

    Node(boolean isFinal, long finalOutput) {
      this.isFinal = isFinal;
      this.finalOutput = finalOutput;
    }

    abstract int find(int input);

    abstract long output(int i);

    abstract int target(int i);
  }

  private static final class OneTrans extends Node {
    private final int input;
    private final long output;
    private final int target;

    OneTrans(int input, long output, int target, boolean isFinal, long finalOutput) {
      super(isFinal, finalOutput);
      this.input = input;
      this.output = output;
      this.target = target;
    }

    @Override
    int find(int b) {
      return b == input ? 0 : -1;
    }

    @Override
    long output(int i) {
      return output;
    }

    @Override
    int target(int i) {
      return target;
    }
  }

  private final class AnyTrans extends Node {
    private final int start;
    private final int ntransLen;
    private final int ntrans;
    private final int tsize;
    private final int osize;
    private final int indexSize;
    private final int end;

    AnyTrans(
        int start,
        int ntransLen,
        int ntrans,
        int tsize,
        int osize,
        int indexSize,
        int end,
        boolean isFinal,
        long finalOutput) {
      super(isFinal, finalOutput);
      this.start = start;
      this.ntransLen = ntransLen;
      this.ntrans = ntrans;
      this.tsize = tsize;
      this.osize = osize;
      this.indexSize = indexSize;
      this.end = end;
    }

    @Override
    int find(int b) {
      if (indexSize > 0) {
        int indexStart = start - ntransLen - 1 - indexSize;
        int i = data[indexStart + b] & 0xFF;
        return i >= ntrans ? -1 : i;
      }
      int inputsStart = start - ntransLen - 1 - ntrans;
      for (int j = 0; j < ntrans; j++) {
        if ((data[inputsStart + j] & 0xFF) == b) {
          return ntrans - j - 1;
        }
      }
      return -1;
    }

    @Override
    long output(int i) {
      if (osize == 0) {
        return 0;
      }
      int at = start - ntransLen - 1 - (ntrans + ntrans * tsize + indexSize) - i * osize - osize;
      return unpack(at, osize);
    }

    @Override
    int target(int i) {
      int at = start - ntransLen - 1 - indexSize - ntrans - i * tsize - tsize;
      return delta(at, tsize, end);
    }
  }
}
