package dev.lancelot.engine.file.write;

import dev.lancelot.engine.file.proto.Encodings21Protos.PageLayout;
import java.util.List;

/** A page ready to be written: its layout and its buffers (each written 64-byte aligned). */
record EncodedPage(PageLayout layout, List<byte[]> buffers, long numRows) {}
