package dev.lancelot.engine.internal.file;

import dev.lancelot.engine.internal.file.container.ColumnInfo;
import dev.lancelot.engine.internal.file.container.FileMetadata;
import dev.lancelot.engine.internal.file.container.PageInfo;
import dev.lancelot.engine.internal.file.layout.Layouts;
import dev.lancelot.engine.io.HadoopFileIO;
import dev.lancelot.engine.io.InputFile;
import dev.lancelot.engine.schema.LanceField;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Describes a Lance file's structure: version, schema, and for every column its pages with their
 * layouts and encodings. A debugging aid; run it from the command line with file paths as
 * arguments.
 */
public final class LanceFileInspector {
  private LanceFileInspector() {}

  /** Full description: header, then one line per page. */
  public static String describe(InputFile file) {
    FileMetadata meta = FileMetadata.read(file);
    StringBuilder sb = new StringBuilder();
    sb.append(file.location())
        .append(": Lance ")
        .append(meta.version())
        .append(", ")
        .append(meta.numRows())
        .append(" rows, ")
        .append(meta.columns().size())
        .append(" columns, ")
        .append(meta.fileLength())
        .append(" bytes\n");
    sb.append("schema: ").append(meta.schema().fields()).append('\n');
    List<LanceField> leaves = columnFields(meta);
    for (ColumnInfo c : meta.columns()) {
      String name =
          c.index() < leaves.size()
              ? leaves.get(c.index()).name() + " (" + leaves.get(c.index()).logicalType() + ")"
              : "?";
      sb.append("column ")
          .append(c.index())
          .append(' ')
          .append(name)
          .append(": ")
          .append(c.pages().size())
          .append(" pages, ")
          .append(c.dataBytes())
          .append(" bytes\n");
      for (PageInfo p : c.pages()) {
        sb.append("  page ")
            .append(p.index())
            .append(" rows [")
            .append(p.firstRow())
            .append(", ")
            .append(p.endRow())
            .append(") buffers ")
            .append(java.util.Arrays.toString(p.bufferSizes()))
            .append(' ')
            .append(Layouts.describe(p))
            .append('\n');
      }
    }
    return sb.toString();
  }

  /**
   * The distinct page descriptions of each column, in column order (e.g. for a report of which
   * encodings a writer chose). Keys are the names of the fields the columns hold; a name held by an
   * earlier column already gets {@code #column} appended.
   */
  public static Map<String, List<String>> encodings(InputFile file) {
    FileMetadata meta = FileMetadata.read(file);
    List<LanceField> leaves = columnFields(meta);
    Map<String, List<String>> out = new LinkedHashMap<>();
    for (ColumnInfo c : meta.columns()) {
      String name = c.index() < leaves.size() ? leaves.get(c.index()).name() : "#" + c.index();
      if (out.containsKey(name)) {
        name = name + "#" + c.index();
      }
      out.put(name, c.pages().stream().map(Layouts::describe).distinct().toList());
    }
    return out;
  }

  /** The fields the file's columns hold, in column order. */
  private static List<LanceField> columnFields(FileMetadata meta) {
    return meta.version().equals(FileVersion.V2_0)
        ? Nested20Field.fieldsWithColumns20(meta.schema().fields())
        : meta.schema().columnFields();
  }

  public static void main(String[] args) {
    HadoopFileIO io = HadoopFileIO.local();
    for (String path : args) {
      try (InputFile in = io.newInputFile(HadoopFileIO.qualify(path))) {
        System.out.println(describe(in));
      }
    }
  }
}
