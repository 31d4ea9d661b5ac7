package dev.lancelot.engine.io;

/** One entry of a directory listing. {@code name} is the last path component. */
public record FileEntry(
    String location, String name, long length, boolean isDirectory, long modificationTime) {}
