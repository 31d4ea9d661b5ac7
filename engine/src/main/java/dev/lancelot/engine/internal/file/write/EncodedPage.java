package dev.lancelot.engine.internal.file.write;

import dev.lancelot.engine.internal.file.proto.Encodings21Protos.PageLayout;
import java.util.List;

/**
 * A page ready to be written: its layout and its buffers (each written 64-byte aligned). Buffers
 * may share arrays with the column's item buffer, so a page must be written before the column takes
 * more rows.
 */
record EncodedPage(PageLayout layout, List<ByteSlice> buffers, long numRows) {}
