package dev.toolyard.sandbox.internal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What keeps two processes of one host from lending one sandbox uid at once: a lock file per uid,
 * {@code <directory>/<uid>.lock}, locked ({@link FileChannel#tryLock()}, a POSIX record lock) for as
 * long as a lease holds the uid. The kernel drops the lock when the process that holds it dies, however
 * it dies, so a JVM killed with {@code SIGKILL} frees its uids. The directory ({@value #DEFAULT} by
 * default) is created {@code 0700} when missing, and refused unless it is a real directory (not a
 * symbolic link) owned by root and writable by no group or other user, as is every directory above it:
 * whoever could write there could hold every uid, or remove a lock file another process holds and let a
 * third lock a new one.
 *
 * <p>A uid some process on the host runs as (any of its real, effective, saved or file-system uids,
 * read from {@code /proc/PID/status}) is not lent either, whoever holds its lock: an orphan of a run
 * whose JVM died (or of an older release that kept no lock) keeps its uid until it is gone. The scan
 * ({@link #runningAs(int, int)}) reads every process's status, about 20 us each in the kernel, so
 * {@link SandboxIds} keeps a released cold-run pair's lock for a moment and lends it again on a scan
 * at most a second old.
 *
 * <p>A record lock belongs to the process: this class opens a uid's file only while no lease of this
 * JVM holds that uid (the caller sees to it), and keeps the channel open until the lease ends, since
 * closing any channel of the file would drop the lock. Thread-safe when used under the caller's lock,
 * as {@link SandboxIds} does.
 */
final class HostUidLocks {
    /** The default directory of the lock files. */
    static final String DEFAULT = "/run/toolyard/uids";
    private static final System.Logger LOG = System.getLogger(HostUidLocks.class.getName());

    private final Path directory;
    private volatile boolean checked;

    HostUidLocks(Path directory) {
        if (!directory.isAbsolute()) {
            throw new IllegalArgumentException("the uid lock directory must be an absolute path, got " + directory);
        }
        this.directory = directory.normalize();
    }

    /** @return the directory of the lock files */
    Path directory() {
        return directory;
    }

    /** One uid's lock, held until {@link #release()}. */
    static final class Held {
        private final int uid;
        private final FileChannel channel;
        private final FileLock lock;

        private Held(int uid, FileChannel channel, FileLock lock) {
            this.uid = uid;
            this.channel = channel;
            this.lock = lock;
        }

        int uid() {
            return uid;
        }

        /** Unlocks the file and closes it. */
        void release() {
            try {
                lock.release();
            } catch (IOException e) {
                // closing the channel below drops it too
            }
            try {
                channel.close();
            } catch (IOException e) {
                LOG.log(System.Logger.Level.WARNING, "could not close the lock file of uid " + uid + ": " + e);
            }
        }
    }

    /**
     * @return {@code uid}'s lock, if no other process holds it
     * @throws IOException if the directory is not one this class trusts, or the file cannot be opened
     */
    Optional<Held> tryLock(int uid) throws IOException {
        ensureDirectory();
        Path file = directory.resolve(Integer.toUnsignedString(uid) + ".lock");
        FileChannel channel = FileChannel.open(file, Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                LinkOption.NOFOLLOW_LINKS), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        try {
            FileLock lock = channel.tryLock();
            if (lock == null) {
                channel.close();
                return Optional.empty();
            }
            return Optional.of(new Held(uid, channel, lock));
        } catch (OverlappingFileLockException e) {
            channel.close(); // this JVM holds it: the caller should not have asked
            return Optional.empty();
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    /** Creates the directory if it is missing and checks it and its parents, once. */
    void ensureDirectory() throws IOException {
        if (checked) {
            return;
        }
        synchronized (this) {
            if (checked) {
                return;
            }
            Path p = directory.getRoot();
            for (Path name : directory) {
                p = p.resolve(name);
                boolean last = p.equals(directory);
                if (!Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
                    try {
                        Files.createDirectory(p, PosixFilePermissions.asFileAttribute(
                                PosixFilePermissions.fromString(last ? "rwx------" : "rwxr-xr-x")));
                    } catch (FileAlreadyExistsException e) {
                        // made by another process meanwhile: checked below like any other
                    }
                }
                trusted(p, last);
            }
            checked = true;
        }
    }

    /**
     * @param last whether {@code dir} is the lock directory itself, which no one else may write even when
     *     it is sticky; a parent may be a sticky directory such as {@code /tmp}, where no one else can
     *     rename or remove root's entries
     * @throws IOException unless {@code dir} is a directory, not a link, root's, and writable by no one else
     */
    private static void trusted(Path dir, boolean last) throws IOException {
        Map<String, Object> a = Files.readAttributes(dir, "unix:uid,mode,isDirectory,isSymbolicLink", LinkOption.NOFOLLOW_LINKS);
        int mode = (Integer) a.get("mode");
        String why = null;
        if ((Boolean) a.get("isSymbolicLink")) {
            why = "is a symbolic link";
        } else if (!(Boolean) a.get("isDirectory")) {
            why = "is not a directory";
        } else if ((Integer) a.get("uid") != 0) {
            why = "is owned by uid " + a.get("uid") + ", not root";
        } else if ((mode & 0022) != 0 && (last || (mode & 01000) == 0)) {
            why = "is writable by its group or by others (mode " + Integer.toOctalString(mode & 07777) + ")";
        }
        if (why != null) {
            throw new IOException("refusing the sandbox uid lock directory " + dir + ": it " + why
                    + "; the lock files that keep two processes from lending one sandbox uid must be root's alone");
        }
    }

    /**
     * @param firstUid the first uid of interest
     * @param count how many
     * @return the uids in {@code [firstUid, firstUid + count)} that some process on the host runs as
     */
    static Set<Integer> runningAs(int firstUid, int count) {
        return scan(firstUid, count, null);
    }

    /**
     * @param uids the uids of interest
     * @return those of {@code uids} that some process on the host runs as
     */
    static Set<Integer> runningAs(Set<Integer> uids) {
        if (uids.isEmpty()) {
            return Set.of();
        }
        long lowest = uids.stream().mapToLong(Integer::toUnsignedLong).min().getAsLong();
        long highest = uids.stream().mapToLong(Integer::toUnsignedLong).max().getAsLong();
        return scan((int) lowest, (int) Math.min(Integer.MAX_VALUE, highest - lowest + 1), uids);
    }

    /** The uids of the block (and of {@code only}, unless null) that some process on the host runs as. */
    private static Set<Integer> scan(int firstUid, int count, Set<Integer> only) {
        Set<Integer> found = new HashSet<>();
        try (DirectoryStream<Path> procs = Files.newDirectoryStream(Path.of("/proc"))) {
            for (Path p : procs) {
                String name = p.getFileName().toString();
                if (name.isEmpty() || name.charAt(0) < '0' || name.charAt(0) > '9') {
                    continue;
                }
                byte[] status;
                try {
                    status = Files.readAllBytes(p.resolve("status"));
                } catch (IOException e) {
                    continue; // gone while we looked
                }
                uids(new String(status, StandardCharsets.US_ASCII), firstUid, count, found);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list /proc to find the processes of the sandbox uids", e);
        }
        if (only != null) {
            found.retainAll(only);
        }
        return found;
    }

    /** Adds the uids of the {@code Uid:} line of one {@code /proc/PID/status} that fall in the block. */
    static void uids(String status, int firstUid, int count, Set<Integer> into) {
        int at = status.startsWith("Uid:") ? 0 : status.indexOf("\nUid:");
        if (at < 0) {
            return;
        }
        int start = status.indexOf(':', at) + 1;
        int end = status.indexOf('\n', start);
        for (String field : status.substring(start, end < 0 ? status.length() : end).trim().split("\\s+")) {
            try {
                long uid = Long.parseLong(field);
                if (uid >= Integer.toUnsignedLong(firstUid) && uid - Integer.toUnsignedLong(firstUid) < count) {
                    into.add((int) uid);
                }
            } catch (NumberFormatException e) {
                // not a uid
            }
        }
    }
}
