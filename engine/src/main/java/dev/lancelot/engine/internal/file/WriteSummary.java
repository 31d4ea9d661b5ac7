package dev.lancelot.engine.internal.file;

import java.util.Arrays;

/**
 * What {@link LanceFileWriter#finish()} wrote, with what a manifest's {@code DataFile} needs.
 *
 * @param numRows rows in the file
 * @param fileSizeBytes bytes in the file ({@code DataFile.file_size_bytes})
 * @param numColumns columns in the file
 * @param fieldIds leaf field ids in pre-order ({@code DataFile.fields})
 * @param columnIndices column of each leaf field ({@code DataFile.column_indices})
 * @param version file format version ({@code DataFile.file_major_version/file_minor_version})
 * @param numPages total pages over all columns
 */
public record WriteSummary(
    long numRows,
    long fileSizeBytes,
    int numColumns,
    int[] fieldIds,
    int[] columnIndices,
    FileVersion version,
    int numPages) {

  @Override
  public boolean equals(Object o) {
    return o instanceof WriteSummary s
        && s.numRows == numRows
        && s.fileSizeBytes == fileSizeBytes
        && s.numColumns == numColumns
        && Arrays.equals(s.fieldIds, fieldIds)
        && Arrays.equals(s.columnIndices, columnIndices)
        && s.version.equals(version)
        && s.numPages == numPages;
  }

  @Override
  public int hashCode() {
    return Long.hashCode(numRows) * 31 + Arrays.hashCode(fieldIds);
  }

  @Override
  public String toString() {
    return "WriteSummary[rows="
        + numRows
        + ", bytes="
        + fileSizeBytes
        + ", columns="
        + numColumns
        + ", fields="
        + Arrays.toString(fieldIds)
        + ", columnIndices="
        + Arrays.toString(columnIndices)
        + ", version="
        + version
        + ", pages="
        + numPages
        + "]";
  }
}
