package dev.lancelot.engine.internal.file;

/**
 * A Lance file format version as recorded in the footer. Format 2.0 is recorded as 0.3 in the
 * footer (and as 2.0 in manifests); 2.1 and 2.2 are recorded as themselves.
 */
public record FileVersion(int major, int minor) {
  public static final FileVersion V2_0 = new FileVersion(0, 3);
  public static final FileVersion V2_1 = new FileVersion(2, 1);
  public static final FileVersion V2_2 = new FileVersion(2, 2);

  /** The footer numbers of the legacy (0.1/0.2) format, which this reader refuses. */
  public static final FileVersion LEGACY = new FileVersion(0, 2);

  /** The version as users and manifests spell it: "2.0", "2.1", "2.2". */
  public String label() {
    return equals(V2_0) ? "2.0" : major + "." + minor;
  }

  /** Major version number a manifest's DataFile records (2 for all 2.x files). */
  public int manifestMajor() {
    return equals(V2_0) ? 2 : major;
  }

  /** Minor version number a manifest's DataFile records. */
  public int manifestMinor() {
    return equals(V2_0) ? 0 : minor;
  }

  /** Whether pages use the 2.1+ structural layouts (mini-block, full-zip, all-null). */
  public boolean isStructural() {
    return major >= 2;
  }

  @Override
  public String toString() {
    return label();
  }
}
