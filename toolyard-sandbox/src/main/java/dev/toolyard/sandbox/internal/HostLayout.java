package dev.toolyard.sandbox.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What of the host a sandbox shows its command: the runtime ({@code /usr} and the top-level links or
 * directories into it), a short named list of {@code /etc} entries (never {@code /etc} whole), and
 * which parts of {@code /proc} are made read-only or masked. Read from the host once. Immutable.
 *
 * @param usr the runtime directory bound read-only
 * @param topLevel {@code /bin}, {@code /sbin}, {@code /lib}... as they are on the host: links are
 *     recreated as links, directories bound read-only, missing ones left out
 * @param etc the {@code /etc} entries bound read-only, those the host has
 * @param procReadOnly parts of {@code /proc} bound read-only over the sandbox's own
 * @param procMasked files of {@code /proc} hidden behind {@code /dev/null}
 * @param procMaskedUnprivileged those of {@code procMasked} that users other than root may read or
 *     write (their mode has a bit for "others"): what a command running as a uid that is not root
 *     and holds no capability could still reach
 */
public record HostLayout(Path usr, List<TopLevel> topLevel, List<Path> etc, List<Path> procReadOnly, List<Path> procMasked,
        List<Path> procMaskedUnprivileged) {
    /** The {@code /etc} entries a command needs to link, name users and tell the time; nothing secret. */
    public static final List<String> ETC_ENTRIES = List.of(
            "alternatives", "group", "ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime", "nsswitch.conf", "passwd");
    private static final List<String> TOP_LEVEL = List.of("bin", "sbin", "lib", "lib32", "lib64", "libx32");
    /** Kernel settings and interfaces a root-mapped process could otherwise write (as docker and podman do). */
    private static final List<String> PROC_READ_ONLY = List.of(
            "sys", "sysrq-trigger", "irq", "bus", "fs", "acpi", "scsi", "asound", "pressure");
    private static final List<String> PROC_MASKED = List.of(
            "kcore", "kmsg", "keys", "timer_list", "timer_stats", "sched_debug", "latency_stats", "mtrr");

    /** Copies the lists. */
    public HostLayout {
        topLevel = List.copyOf(topLevel);
        etc = List.copyOf(etc);
        procReadOnly = List.copyOf(procReadOnly);
        procMasked = List.copyOf(procMasked);
        procMaskedUnprivileged = List.copyOf(procMaskedUnprivileged);
    }

    /**
     * @return the parts of {@code /proc} bound read-only for a command that runs as a uid that is not
     *     root and holds no capability: only {@code /proc/sys}, where a few files are writable by
     *     anyone and guarded by a capability check alone; the rest only root may write
     */
    public List<Path> procReadOnlyForUnprivileged() {
        return procReadOnly.stream().filter(p -> p.getFileName().toString().equals("sys")).toList();
    }

    /** @return {@link #procMaskedUnprivileged()} */
    public List<Path> procMaskedForUnprivileged() {
        return procMaskedUnprivileged;
    }

    /**
     * A top-level runtime entry.
     *
     * @param path the entry, such as {@code /bin}
     * @param linkTarget where it points when it is a symbolic link (as written, e.g. {@code usr/bin});
     *     empty when it is a directory
     */
    public record TopLevel(Path path, Optional<Path> linkTarget) {}

    /** @return the layout of this host */
    public static HostLayout inspect() {
        Path root = Path.of("/");
        List<TopLevel> top = new ArrayList<>();
        for (String name : TOP_LEVEL) {
            Path p = root.resolve(name);
            try {
                if (Files.isSymbolicLink(p)) {
                    top.add(new TopLevel(p, Optional.of(Files.readSymbolicLink(p))));
                } else if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
                    top.add(new TopLevel(p, Optional.empty()));
                }
            } catch (IOException e) {
                // unreadable: leave it out, as if missing
            }
        }
        List<Path> etc = new ArrayList<>();
        for (String name : ETC_ENTRIES) {
            Path p = root.resolve("etc").resolve(name);
            if (Files.exists(p)) {
                etc.add(p);
            }
        }
        List<Path> readOnly = new ArrayList<>();
        for (String name : PROC_READ_ONLY) {
            Path p = root.resolve("proc").resolve(name);
            if (Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
                readOnly.add(p);
            }
        }
        List<Path> masked = new ArrayList<>();
        List<Path> maskedUnprivileged = new ArrayList<>();
        for (String name : PROC_MASKED) {
            Path p = root.resolve("proc").resolve(name);
            if (Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
                masked.add(p);
                try {
                    if (((Integer) Files.getAttribute(p, "unix:mode", LinkOption.NOFOLLOW_LINKS) & 0007) != 0) {
                        maskedUnprivileged.add(p);
                    }
                } catch (IOException | UnsupportedOperationException e) {
                    maskedUnprivileged.add(p); // unknown: mask it
                }
            }
        }
        return new HostLayout(root.resolve("usr"), top, etc, readOnly, masked, maskedUnprivileged);
    }

    /**
     * @param executable an absolute path on the host
     * @return whether the sandbox sees it at the same path: it lies in {@code /usr} or in a
     *     top-level runtime entry
     */
    public boolean visibleInside(Path executable) {
        if (!executable.isAbsolute()) {
            return false;
        }
        Path p = executable.normalize();
        if (p.startsWith(usr)) {
            return true;
        }
        for (TopLevel t : topLevel) {
            if (p.startsWith(t.path())) {
                return true;
            }
        }
        return false;
    }
}
