package dev.toolyard.sandbox.internal;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The files a sandbox gives its runs, written once when it probes, in a directory of its own that
 * only this process's user may enter ({@code 0700}), removed when the JVM exits:
 *
 * <ul>
 *   <li>{@code etc/}: a copy of the {@link HostLayout#etc()} entries, bound at {@code /etc} in one
 *       mount instead of one mount per entry (each mount costs bubblewrap about 0.1 ms). A change
 *       to those host files after the probe is not seen by the sandbox's runs;</li>
 *   <li>the seccomp program for bubblewrap and the profile for the container engine, each
 *       {@code 0600}, read by the launcher and the engine, which run as this process's user.</li>
 * </ul>
 *
 * <p>Every sandbox of one JVM shares one such directory ({@link #shared}) while what it holds is the
 * same: the filter, the profiles, and the {@code /etc} entries as the host has them (their paths, types,
 * sizes, modification times and link targets). A sandbox probed after one of those entries changed gets
 * a directory of its own with the new snapshot. So a JVM that builds a sandbox for each session keeps
 * one directory, not one for each sandbox.
 *
 * <p>A directory's JVM holds a lock on its {@value #LOCK} file while it lives. The kernel drops the lock
 * when that JVM ends, however it ends, so a directory whose JVM was killed and could not remove it is
 * removed by the next JVM that writes one ({@link #removeLeftBehind(Path)}).
 *
 * <p>Immutable once written. Thread-safe.
 */
public final class SandboxFiles {
    private static final System.Logger LOG = System.getLogger(SandboxFiles.class.getName());
    /** The prefix of each directory's name, in {@code java.io.tmpdir}. */
    static final String PREFIX = "toolyard-sandbox-";
    /** The file whose lock the directory's JVM holds while it lives. */
    static final String LOCK = ".owner-lock";
    /** Written once the lock is held: a directory without it may be one another JVM is still writing. */
    static final String LOCKED = ".owner-locked";

    private static final Object SHARED_LOCK = new Object();
    private static final Map<String, SandboxFiles> SHARED = new HashMap<>(); // guarded by SHARED_LOCK
    private static boolean sweptLeftBehind; // guarded by SHARED_LOCK
    /** Every directory this JVM wrote and has not deleted, shared or not: never taken for left behind. */
    private static final Set<Path> WRITTEN = new HashSet<>(); // guarded by itself

    private final Path dir;
    private final Path etc;
    private final Optional<Path> seccompProgram;
    private final Optional<Path> seccompProfile;
    private final Optional<Path> gvisorSeccompProfile;
    private final FileChannel ownerLock; // held open, and its lock held, until delete()

    private SandboxFiles(Path dir, FileChannel ownerLock, Path etc, Optional<Path> seccompProgram,
            Optional<Path> seccompProfile, Optional<Path> gvisorSeccompProfile) {
        this.dir = dir;
        this.ownerLock = ownerLock;
        this.etc = etc;
        this.seccompProgram = seccompProgram;
        this.seccompProfile = seccompProfile;
        this.gvisorSeccompProfile = gvisorSeccompProfile;
    }

    /**
     * The files this JVM's sandboxes share: the directory written for the same filter, profiles and
     * {@code /etc} entries as they are now, or a new one when there is none (or it was removed). The
     * first call in a JVM first removes what JVMs that have ended left behind
     * ({@link #removeLeftBehind(Path)}).
     *
     * @return the files; the same instance for the same content
     * @throws IOException if they cannot be written
     */
    public static SandboxFiles shared(HostLayout layout, Optional<byte[]> program, Optional<String> profile,
            Optional<String> gvisorProfile) throws IOException {
        String key = key(layout, program, profile, gvisorProfile);
        synchronized (SHARED_LOCK) {
            if (!sweptLeftBehind) {
                sweptLeftBehind = true;
                removeLeftBehind(Path.of(System.getProperty("java.io.tmpdir")));
            }
            SandboxFiles f = SHARED.get(key);
            if (f == null || !Files.isRegularFile(f.dir.resolve(LOCKED), LinkOption.NOFOLLOW_LINKS)) {
                f = write(layout, program, profile, gvisorProfile);
                SHARED.put(key, f);
            }
            return f;
        }
    }

    /**
     * Removes the directories of this prefix in {@code tmp} that a JVM which has ended left behind: each
     * one owned by this process's user, a directory (not a link), marked {@value #LOCKED}, whose
     * {@value #LOCK} no process holds. One still being written (not yet marked), one of another user, one
     * whose JVM lives, and this JVM's own are left alone. Nothing in them is followed.
     *
     * @param tmp the directory to look in
     * @return how many were removed
     */
    static int removeLeftBehind(Path tmp) {
        int removed = 0;
        Object me;
        try {
            me = Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            LOG.log(System.Logger.Level.DEBUG, "not looking for left-behind sandbox directories: " + e);
            return 0;
        }
        try (DirectoryStream<Path> found = Files.newDirectoryStream(tmp, PREFIX + "*")) {
            for (Path d : found) {
                if (leftBehind(d, me)) {
                    removed++;
                }
            }
        } catch (IOException | RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "could not look for left-behind sandbox directories in " + tmp + ": " + e);
        }
        return removed;
    }

    private static boolean leftBehind(Path d, Object me) {
        try {
            if (!Files.isDirectory(d, LinkOption.NOFOLLOW_LINKS)
                    || !me.equals(Files.getAttribute(d, "unix:uid", LinkOption.NOFOLLOW_LINKS))
                    || !Files.isRegularFile(d.resolve(LOCKED), LinkOption.NOFOLLOW_LINKS)
                    || !Files.isRegularFile(d.resolve(LOCK), LinkOption.NOFOLLOW_LINKS)
                    || ownedHere(d)) {
                return false;
            }
            try (FileChannel ch = FileChannel.open(d.resolve(LOCK), StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS)) {
                FileLock held = ch.tryLock();
                if (held == null) {
                    return false; // its JVM lives
                }
                deleteTree(d);
                return true;
            }
        } catch (IOException | OverlappingFileLockException | UnsupportedOperationException e) {
            return false;
        }
    }

    private static boolean ownedHere(Path d) {
        synchronized (WRITTEN) {
            return WRITTEN.contains(d);
        }
    }

    private static String key(HostLayout layout, Optional<byte[]> program, Optional<String> profile,
            Optional<String> gvisorProfile) throws IOException {
        MessageDigest sha;
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
        StringBuilder b = new StringBuilder();
        for (Path entry : layout.etc()) {
            b.append("entry ").append(entry).append('\n');
            if (!Files.exists(entry, LinkOption.NOFOLLOW_LINKS)) {
                b.append("missing\n");
                continue;
            }
            try (Stream<Path> walk = Files.walk(entry)) { // links are not followed
                for (Path p : (Iterable<Path>) walk.sorted()::iterator) {
                    BasicFileAttributes a = Files.readAttributes(p, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
                    b.append(p).append(' ').append(a.isDirectory() ? 'd' : a.isSymbolicLink() ? 'l' : a.isRegularFile() ? 'f' : 'o')
                            .append(' ').append(a.size()).append(' ').append(a.lastModifiedTime().toInstant())
                            .append(' ').append(a.fileKey());
                    if (a.isSymbolicLink()) {
                        b.append(" -> ").append(Files.readSymbolicLink(p));
                    }
                    b.append('\n');
                }
            }
        }
        sha.update(b.toString().getBytes(StandardCharsets.UTF_8));
        sha.update((byte) 0);
        part(sha, program.orElse(null));
        part(sha, profile.map(t -> t.getBytes(StandardCharsets.UTF_8)).orElse(null));
        part(sha, gvisorProfile.map(t -> t.getBytes(StandardCharsets.UTF_8)).orElse(null));
        return HexFormat.of().formatHex(sha.digest());
    }

    private static void part(MessageDigest sha, byte[] bytes) {
        if (bytes == null) {
            sha.update((byte) 0);
            return;
        }
        sha.update((byte) 1);
        sha.update(java.nio.ByteBuffer.allocate(8).putLong(bytes.length).array());
        sha.update(bytes);
    }

    /**
     * As {@link #write(HostLayout, Optional, Optional, Optional)} with no profile of gVisor's own:
     * the gVisor rung then loads none.
     */
    public static SandboxFiles write(HostLayout layout, Optional<byte[]> program, Optional<String> profile) throws IOException {
        return write(layout, program, profile, Optional.empty());
    }

    /**
     * @param program the seccomp program for bubblewrap; empty for none
     * @param profile the OCI seccomp profile (JSON) for the container engine; empty for none
     * @param gvisorProfile the profile for gVisor's {@code runsc} ({@link SeccompFilter#forGvisor()}); empty for none
     * @return the files, written
     * @throws IOException if they cannot be written
     */
    public static SandboxFiles write(HostLayout layout, Optional<byte[]> program, Optional<String> profile,
            Optional<String> gvisorProfile) throws IOException {
        Path dir = Files.createTempDirectory(PREFIX, PosixFilePermissions.asFileAttribute(
                PosixFilePermissions.fromString("rwx------")));
        synchronized (WRITTEN) {
            WRITTEN.add(dir);
        }
        FileChannel lock = null;
        try {
            lock = FileChannel.open(dir.resolve(LOCK), Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
                    LinkOption.NOFOLLOW_LINKS), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            if (lock.tryLock() == null) {
                throw new IOException("could not lock " + dir.resolve(LOCK));
            }
            privateFile(dir.resolve(LOCKED), new byte[0]);
            Path etc = Files.createDirectory(dir.resolve("etc"));
            Files.setPosixFilePermissions(etc, PosixFilePermissions.fromString("rwxr-xr-x"));
            for (Path entry : layout.etc()) {
                copy(entry, etc.resolve(entry.getFileName().toString()));
            }
            Optional<Path> bpf = Optional.empty();
            if (program.isPresent()) {
                bpf = Optional.of(privateFile(dir.resolve("seccomp.bpf"), program.get()));
            }
            Optional<Path> json = Optional.empty();
            if (profile.isPresent()) {
                json = Optional.of(privateFile(dir.resolve("seccomp.json"), profile.get().getBytes(java.nio.charset.StandardCharsets.UTF_8)));
            }
            Optional<Path> gvisorJson = Optional.empty();
            if (gvisorProfile.isPresent()) {
                gvisorJson = Optional.of(privateFile(dir.resolve("seccomp-gvisor.json"),
                        gvisorProfile.get().getBytes(java.nio.charset.StandardCharsets.UTF_8)));
            }
            SandboxFiles files = new SandboxFiles(dir, lock, etc, bpf, json, gvisorJson);
            Runtime.getRuntime().addShutdownHook(new Thread(files::delete, "toolyard-sandbox-files-cleanup"));
            return files;
        } catch (IOException | RuntimeException e) {
            deleteTree(dir);
            closeQuietly(lock);
            synchronized (WRITTEN) {
                WRITTEN.remove(dir);
            }
            throw e;
        }
    }

    private static void closeQuietly(FileChannel ch) {
        if (ch != null) {
            try {
                ch.close();
            } catch (IOException e) {
                // the lock goes with the process
            }
        }
    }

    /** @return the directory bound at {@code /etc} */
    public Path etcSnapshot() {
        return etc;
    }

    /** @return the seccomp program bubblewrap loads; empty when there is none */
    public Optional<Path> seccompProgram() {
        return seccompProgram;
    }

    /** @return the seccomp profile the container engine loads; empty when there is none */
    public Optional<Path> seccompProfile() {
        return seccompProfile;
    }

    /** @return the seccomp profile gVisor's {@code runsc} loads; empty when there is none */
    public Optional<Path> gvisorSeccompProfile() {
        return gvisorSeccompProfile;
    }

    /** @return the private directory */
    public Path directory() {
        return dir;
    }

    private static Path privateFile(Path p, byte[] content) throws IOException {
        Files.createFile(p, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.write(p, content, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING);
        return p;
    }

    /** Copies a file, a link or a directory tree as it is; links stay links, nothing is followed. */
    private static void copy(Path from, Path to) throws IOException {
        if (!Files.isDirectory(from, LinkOption.NOFOLLOW_LINKS)) {
            Files.copy(from, to, LinkOption.NOFOLLOW_LINKS);
            readable(to);
            return;
        }
        Files.walkFileTree(from, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path d, BasicFileAttributes attrs) throws IOException {
                Path target = to.resolve(from.relativize(d).toString());
                Files.createDirectories(target);
                Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rwxr-xr-x"));
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path f, BasicFileAttributes attrs) throws IOException {
                Path target = to.resolve(from.relativize(f).toString());
                Files.copy(f, target, LinkOption.NOFOLLOW_LINKS, StandardCopyOption.REPLACE_EXISTING);
                readable(target);
                return FileVisitResult.CONTINUE;
            }
        });
    }

    private static void readable(Path p) throws IOException {
        if (!Files.isSymbolicLink(p)) {
            Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rw-r--r--"));
        }
    }

    /** Removes the directory, then gives up its lock. */
    void delete() {
        deleteTree(dir);
        closeQuietly(ownerLock);
        synchronized (WRITTEN) {
            WRITTEN.remove(dir);
        }
    }

    /**
     * Removes {@code dir} and what is in it through directory descriptors, each opened without following a
     * link and each entry removed relative to its directory's: a directory swapped for a link while it is
     * being removed leads nowhere else. What cannot be removed is left in the temporary directory.
     */
    private static void deleteTree(Path dir) {
        Path parent = dir.getParent();
        Path name = dir.getFileName();
        if (parent == null || name == null) {
            return;
        }
        try (DirectoryStream<Path> up = Files.newDirectoryStream(parent)) {
            if (!(up instanceof SecureDirectoryStream<Path> secureUp)) {
                LOG.log(System.Logger.Level.DEBUG, "no secure directory streams here: " + dir + " is left in place");
                return;
            }
            try (SecureDirectoryStream<Path> d = secureUp.newDirectoryStream(name, LinkOption.NOFOLLOW_LINKS)) {
                empty(d);
            }
            secureUp.deleteDirectory(name);
        } catch (IOException e) {
            // left in the temporary directory
        }
    }

    private static void empty(SecureDirectoryStream<Path> d) {
        List<Path> names = new ArrayList<>();
        for (Path p : d) {
            names.add(p.getFileName());
        }
        for (Path n : names) {
            try {
                BasicFileAttributes a = d.getFileAttributeView(n, BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
                        .readAttributes();
                if (a.isDirectory()) {
                    try (SecureDirectoryStream<Path> sub = d.newDirectoryStream(n, LinkOption.NOFOLLOW_LINKS)) {
                        empty(sub);
                    }
                    d.deleteDirectory(n);
                } else {
                    d.deleteFile(n);
                }
            } catch (IOException e) {
                // left, as above
            }
        }
    }
}
