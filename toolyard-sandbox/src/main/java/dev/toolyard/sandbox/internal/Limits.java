package dev.toolyard.sandbox.internal;

import dev.toolyard.sandbox.ResourceLimits;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The prefix both rungs run inside the sandbox before the command: {@code env -i} with exactly the
 * allowlisted environment (bubblewrap sets {@code PWD} and engines add variables of their own after
 * any clearing they offer), then {@code prlimit} with every limit. Stateless.
 */
final class Limits {
    /** Open files per process: enough for any tool, few enough to bound kernel memory. */
    static final int OPEN_FILES = 1024;

    private Limits() {}

    /**
     * @param env the command's whole environment; names are POSIX names, so none is taken for an option
     * @param nproc the {@code RLIMIT_NPROC} to set (effective for a non-root uid only)
     * @return {@code env -i -- NAME=VALUE... prlimit ... --}, ready for the command
     */
    static List<String> inside(Path envTool, Path prlimit, Map<String, String> env, ResourceLimits limits, long nproc) {
        List<String> a = new ArrayList<>(12 + env.size());
        a.add(envTool.toString());
        a.add("-i");
        a.add("--");
        for (Map.Entry<String, String> e : new TreeMap<>(env).entrySet()) {
            a.add(e.getKey() + "=" + e.getValue());
        }
        a.addAll(prlimit(prlimit, limits, nproc));
        return a;
    }

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
