package dev.toolyard;

/** How a path argument is contained: for reading (read roots and the write root) or writing (the write root only). */
public enum PathAccess {
    /** Resolved inside the read roots or the write root. */
    READ,
    /** Resolved inside the write root, with no symbolic link in the target or its parents. */
    WRITE
}
