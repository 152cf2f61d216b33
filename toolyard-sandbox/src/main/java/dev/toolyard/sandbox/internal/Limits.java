package dev.toolyard.sandbox.internal;

import dev.toolyard.sandbox.ResourceLimits;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The {@code prlimit} prefix both rungs put before the command. Stateless. */
final class Limits {
    /** Open files per process: enough for any tool, few enough to bound kernel memory. */
    static final int OPEN_FILES = 1024;

    private Limits() {}

    /**
     * @param nproc the {@code RLIMIT_NPROC} to set (effective for a non-root uid only)
     * @return {@code prlimit} with every limit, ending in {@code --}, ready for the command
     */
    static List<String> prlimit(Path prlimit, ResourceLimits limits, long nproc) {
        List<String> a = new ArrayList<>(9);
        a.add(prlimit.toString());
        a.add("--cpu=" + limits.cpuSeconds());
        a.add("--as=" + limits.memoryBytes());
        a.add("--fsize=" + limits.fileSizeBytes());
        a.add("--nofile=" + OPEN_FILES);
        a.add("--nproc=" + nproc);
        a.add("--core=0");
        a.add("--");
        return a;
    }
}
