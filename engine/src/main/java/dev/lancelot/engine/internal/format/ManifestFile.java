package dev.lancelot.engine.internal.format;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageLite;
import dev.lancelot.engine.internal.format.proto.TableProtos.IndexMetadata;
import dev.lancelot.engine.internal.format.proto.TableProtos.IndexSection;
import dev.lancelot.engine.internal.format.proto.TableProtos.Manifest;
import dev.lancelot.engine.internal.format.proto.TransactionProtos.Transaction;
import dev.lancelot.engine.io.InputFile;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;

/**
 * The binary layout of a manifest file in {@code _versions/}.
 *
 * <pre>
 * [u32 len][IndexSection pb]     optional; its offset is Manifest.index_section
 * [u32 len][Transaction pb]      optional; its offset is Manifest.transaction_section
 * [u32 len][Manifest pb]         the manifest, always last
 * [i64 LE]  offset of the manifest's length prefix
 * [u16 LE]  major version (0)
 * [u16 LE]  minor version (2)
 * [4 bytes] magic "LANC"
 * </pre>
 *
 * All lengths and offsets are little-endian. The manifest's own offset is in the 16-byte footer;
 * the other sections are located by the absolute offsets the manifest records.
 */
public record ManifestFile(
    Manifest manifest, List<IndexMetadata> indices, Optional<Transaction> transaction) {
  public static final byte[] MAGIC = "LANC".getBytes(StandardCharsets.US_ASCII);
  public static final int FOOTER_SIZE = 16;
  static final short MAJOR = 0;
  static final short MINOR = 2;
  private static final int PREFETCH = 64 * 1024;

  public ManifestFile {
    indices = List.copyOf(indices);
  }

  /** Reads a manifest file with one tail read when it is under 64 KiB (the common case). */
  public static ManifestFile read(InputFile file) {
    long size = file.length();
    String where = file.location();
    if (size < FOOTER_SIZE + 4) {
      throw new CorruptFileException(
          where, "manifest is " + size + " bytes, smaller than its footer");
    }
    ByteBuffer tail = file.readTail(PREFETCH);
    long tailStart = size - tail.remaining();
    int magicAt = tail.limit() - 4;
    for (int i = 0; i < 4; i++) {
      if (tail.get(magicAt + i) != MAGIC[i]) {
        throw new CorruptFileException(
            where, "bad magic number at the end of the manifest (expected \"LANC\")");
      }
    }
    long manifestPos = tail.getLong(tail.limit() - FOOTER_SIZE);
    if (manifestPos < 0 || manifestPos + 4 > size - FOOTER_SIZE) {
      throw new CorruptFileException(
          where, "manifest offset " + manifestPos + " lies outside the file of " + size + " bytes");
    }
    ByteBuffer block =
        manifestPos >= tailStart
            ? tail.slice((int) (manifestPos - tailStart), (int) (size - FOOTER_SIZE - manifestPos))
            : file.read(manifestPos, (int) (size - FOOTER_SIZE - manifestPos));
    block.order(ByteOrder.LITTLE_ENDIAN);
    int recorded = block.getInt(0);
    if (recorded != block.remaining() - 4) {
      throw new CorruptFileException(
          where,
          "manifest length prefix says "
              + recorded
              + " bytes but "
              + (block.remaining() - 4)
              + " bytes precede the footer");
    }
    Manifest manifest =
        parse(where, "manifest", () -> Manifest.parseFrom(block.slice(4, recorded)));

    List<IndexMetadata> indices = List.of();
    if (manifest.hasIndexSection()) {
      IndexSection section =
          parse(
              where,
              "index section",
              () ->
                  IndexSection.parseFrom(
                      readBlock(file, tail, tailStart, manifest.getIndexSection(), manifestPos)));
      indices = section.getIndicesList();
    }
    Optional<Transaction> txn = Optional.empty();
    if (manifest.hasTransactionSection()) {
      Transaction t =
          parse(
              where,
              "transaction section",
              () ->
                  Transaction.parseFrom(
                      readBlock(
                          file, tail, tailStart, manifest.getTransactionSection(), manifestPos)));
      txn = Optional.of(t);
    }
    return new ManifestFile(manifest, indices, txn);
  }

  private static ByteBuffer readBlock(
      InputFile file, ByteBuffer tail, long tailStart, long pos, long limit) {
    if (pos < 0 || pos + 4 > limit) {
      throw new CorruptFileException(
          file.location(), "section offset " + pos + " lies outside the manifest file");
    }
    ByteBuffer lenBuf =
        pos >= tailStart ? tail.slice((int) (pos - tailStart), 4) : file.read(pos, 4);
    int len = lenBuf.order(ByteOrder.LITTLE_ENDIAN).getInt(0);
    if (len < 0 || pos + 4 + len > limit) {
      throw new CorruptFileException(
          file.location(),
          "section at offset " + pos + " claims " + len + " bytes, past the manifest");
    }
    return pos >= tailStart
        ? tail.slice((int) (pos + 4 - tailStart), len)
        : file.read(pos + 4, len);
  }

  private interface Parser<T> {
    T parse() throws InvalidProtocolBufferException;
  }

  private static <T> T parse(String where, String what, Parser<T> parser) {
    try {
      return parser.parse();
    } catch (InvalidProtocolBufferException e) {
      throw new CorruptFileException(
          where, "the " + what + " is not a valid protobuf message (" + e.getMessage() + ")", e);
    }
  }

  /**
   * Serializes a manifest file. {@code index_section} and {@code transaction_section} of the given
   * manifest are replaced by the offsets where the sections land.
   */
  public static byte[] write(
      Manifest manifest, List<IndexMetadata> indices, Transaction transaction) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(4096);
    Manifest.Builder b = manifest.toBuilder().clearIndexSection().clearTransactionSection();
    if (!indices.isEmpty()) {
      b.setIndexSection(out.size());
      writeBlock(out, IndexSection.newBuilder().addAllIndices(indices).build());
    }
    if (transaction != null) {
      b.setTransactionSection(out.size());
      writeBlock(out, transaction);
    }
    long manifestPos = out.size();
    writeBlock(out, b.build());
    ByteBuffer footer = ByteBuffer.allocate(FOOTER_SIZE).order(ByteOrder.LITTLE_ENDIAN);
    footer.putLong(manifestPos).putShort(MAJOR).putShort(MINOR).put(MAGIC);
    out.write(footer.array(), 0, FOOTER_SIZE);
    return out.toByteArray();
  }

  private static void writeBlock(ByteArrayOutputStream out, MessageLite message) {
    byte[] bytes = message.toByteArray();
    ByteBuffer len = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(bytes.length);
    out.write(len.array(), 0, 4);
    out.write(bytes, 0, bytes.length);
  }

  /** Parses a raw protobuf transaction file from {@code _transactions/}. */
  public static Transaction parseTransaction(String where, byte[] bytes) {
    return parse(where, "transaction", () -> Transaction.parseFrom(bytes));
  }
}
