package dev.lancelot.engine.internal.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The URIs of external blobs lancelot reads: absolute, under the dataset's root, nothing else. */
class ExternalBlobLocationTest {
  static final String ROOT = "file:/data/ds";

  @Test
  void readsAbsoluteUrisUnderTheRoot() {
    assertThat(BlobColumns.externalLocation("file:///data/ds/media/a.bin", ROOT, "row"))
        .isEqualTo("file:/data/ds/media/a.bin");
    assertThat(BlobColumns.externalLocation("file:/data/ds/a%20b.bin", ROOT, "row"))
        .isEqualTo("file:/data/ds/a b.bin");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "file:///data/ds2/a.bin", // a sibling sharing the root's prefix
        "file:///data/ds/../secret", // escapes with ..
        "file:///data/ds/./a.bin",
        "/data/ds/a.bin", // no scheme
        "media/a.bin", // relative
        "s3a://bucket/data/ds/a.bin", // another file system
        "file:///data/ds/a.bin?x=1",
        "file:///etc/passwd",
        "file:///data/ds"
      })
  void refusesEverythingElse(String uri) {
    assertThatThrownBy(() -> BlobColumns.externalLocation(uri, ROOT, "row 1"))
        .isInstanceOf(UnsupportedFileFeatureException.class)
        .hasMessageContaining("row 1")
        .hasMessageContaining("outside the dataset's root");
  }

  @Test
  void refusesWithoutADatasetAndInvalidUris() {
    assertThatThrownBy(() -> BlobColumns.externalLocation("file:///data/ds/a", null, "row"))
        .isInstanceOf(UnsupportedFileFeatureException.class)
        .hasMessageContaining("open the dataset");
    assertThatThrownBy(() -> BlobColumns.externalLocation("file:///data/ds/a b", ROOT, "row"))
        .isInstanceOf(CorruptFileException.class)
        .hasMessageContaining("not a valid URI");
  }
}
