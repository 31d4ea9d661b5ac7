package dev.lancelot.engine.distributed;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;

/**
 * What every index build task knows of its work: the dataset version it reads and the group of
 * fragments its segment covers.
 */
abstract class GroupTask implements Serializable {
  private static final long serialVersionUID = 1L;
  private final String location;
  private final long version;
  private final long[] fragments;
  private final long liveRows;

  GroupTask(String location, long version, long[] fragments, long liveRows) {
    this.location = location;
    this.version = version;
    this.fragments = fragments.clone();
    this.liveRows = liveRows;
  }

  /** The dataset location. */
  public String location() {
    return location;
  }

  /** The version the build reads. */
  public long version() {
    return version;
  }

  /** The fragments this task's segment covers, in order. */
  public List<Long> fragments() {
    List<Long> out = new ArrayList<>(fragments.length);
    for (long f : fragments) {
      out.add(f);
    }
    return out;
  }

  /** Live rows of the fragments (by the manifest's counts), for progress logs. */
  public long liveRows() {
    return liveRows;
  }

  /** The fragment ids, as planned. */
  long[] fragmentIds() {
    return fragments.clone();
  }
}
