package dev.toolyard.sandbox.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
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
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
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
 * same: the filter, the profiles, and the {@code /etc} entries as the host has them (their paths, modes,
 * inodes, devices, sizes, modification and change times, and link targets). A sandbox probed after one
 * of those entries changed gets a directory of its own with the new snapshot; the earlier one stays for
 * the sandboxes that use it, until the JVM exits. So a JVM that builds a sandbox for each session keeps
 * one directory while {@code /etc} is unchanged, not one for each sandbox.
 *
 * <p>A directory's JVM holds a lock on its {@value #LOCK} file while it lives, and marks it
 * {@value #LOCKED} with {@link #THIS_PROCESS} once it does. The kernel drops the lock when that JVM ends,
 * however it ends, so a directory whose JVM was killed and could not remove it is removed by the next
 * JVM that writes one ({@link #removeLeftBehind(Path)}). Where the file system takes no locks, the
 * directory is left unmarked: never swept, removed at exit as ever.
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

    /**
     * What {@value #LOCKED} holds: this process, by pid and start. The sweep never opens the lock file of a
     * directory marked so, even from another class loader's copy of this class, which does not know the
     * directory: closing any descriptor of the lock file would drop this process's lock on it.
     */
    static final String THIS_PROCESS = ProcessHandle.current().pid() + "@"
            + ProcessHandle.current().info().startInstant().map(Object::toString).orElse("?");
    private static final int S_IFMT = 0170000;
    private static final int S_IFDIR = 0040000;
    private static final int S_IFLNK = 0120000;

    private static final Object SHARED_LOCK = new Object();
    private static final Map<String, SandboxFiles> SHARED = new HashMap<>(); // guarded by SHARED_LOCK
    private static final AtomicBoolean SWEPT = new AtomicBoolean();

    private final Path dir;
    private final Path etc;
    private final Optional<Path> seccompProgram;
    private final Optional<Path> seccompProfile;
    private final Optional<Path> gvisorSeccompProfile;
    private final FileChannel ownerLock; // held open, and its lock held, until delete()
    private final FileLock held; // referenced, so the JDK's table of this process's locks keeps it

    private SandboxFiles(Path dir, FileChannel ownerLock, FileLock held, Path etc, Optional<Path> seccompProgram,
            Optional<Path> seccompProfile, Optional<Path> gvisorSeccompProfile) {
        this.dir = dir;
        this.ownerLock = ownerLock;
        this.held = held;
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
        if (SWEPT.compareAndSet(false, true)) {
            removeLeftBehind(Path.of(System.getProperty("java.io.tmpdir")));
        }
        synchronized (SHARED_LOCK) {
            SandboxFiles f = SHARED.get(key);
            if (f == null || !Files.isDirectory(f.etc, LinkOption.NOFOLLOW_LINKS)) {
                f = write(layout, program, profile, gvisorProfile);
                SHARED.put(key, f);
            }
            return f;
        }
    }

    /**
     * Removes the directories of this prefix in {@code tmp} that a JVM which has ended left behind: each
     * one owned by this process's user, a directory (not a link), marked {@value #LOCKED} by another
     * process than this one, whose {@value #LOCK} no process holds. One still being written (not yet
     * marked), one of another user, one whose JVM lives, and this process's own are left alone. Each is
     * checked, locked and emptied through one descriptor of it, opened without following a link, and
     * nothing in it is followed.
     *
     * @param tmp the directory to look in
     * @return how many were removed
     */
    static int removeLeftBehind(Path tmp) {
        OptionalInt me = effectiveUid();
        if (me.isEmpty()) {
            LOG.log(System.Logger.Level.DEBUG, "not looking for left-behind sandbox directories: no uid in /proc/self/status");
            return 0;
        }
        int removed = 0;
        try (DirectoryStream<Path> listed = Files.newDirectoryStream(tmp)) {
            if (!(listed instanceof SecureDirectoryStream<Path> up)) {
                return 0;
            }
            List<Path> names = new ArrayList<>();
            for (Path p : up) {
                if (p.getFileName().toString().startsWith(PREFIX)) {
                    names.add(p.getFileName());
                }
            }
            for (Path name : names) {
                if (leftBehind(up, tmp.resolve(name), name, me.getAsInt())) {
                    removed++;
                }
            }
        } catch (IOException | RuntimeException e) {
            LOG.log(System.Logger.Level.DEBUG, "could not look for left-behind sandbox directories in " + tmp + ": " + e);
        }
        return removed;
    }

    /** @return this process's effective uid, as the kernel gives it ({@code /proc/self/status}); empty if unread */
    private static OptionalInt effectiveUid() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"), StandardCharsets.ISO_8859_1)) {
                if (line.startsWith("Uid:")) {
                    String[] f = line.substring(4).trim().split("\\s+");
                    return f.length >= 2 ? OptionalInt.of(Integer.parseUnsignedInt(f[1])) : OptionalInt.empty();
                }
            }
        } catch (IOException | RuntimeException e) {
            // as below
        }
        return OptionalInt.empty();
    }

    private static boolean leftBehind(SecureDirectoryStream<Path> up, Path d, Path name, int me) {
        try {
            Map<String, Object> a = Files.readAttributes(d, "unix:uid,mode,fileKey", LinkOption.NOFOLLOW_LINKS);
            if (((Integer) a.get("mode") & S_IFMT) != S_IFDIR || (Integer) a.get("uid") != me) {
                return false;
            }
            try (SecureDirectoryStream<Path> dir = up.newDirectoryStream(name, LinkOption.NOFOLLOW_LINKS)) {
                if (!a.get("fileKey").equals(dir.getFileAttributeView(BasicFileAttributeView.class).readAttributes().fileKey())) {
                    return false; // replaced since it was checked
                }
                Optional<String> marker = small(dir, Path.of(LOCKED));
                if (marker.isEmpty() || marker.get().equals(THIS_PROCESS)) {
                    return false; // being written, or this process's own
                }
                try (SeekableByteChannel c = dir.newByteChannel(Path.of(LOCK),
                        Set.of(StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS))) {
                    if (!(c instanceof FileChannel ch) || ch.tryLock() == null) {
                        return false; // its JVM lives
                    }
                    empty(dir);
                }
            }
            up.deleteDirectory(name);
            return true;
        } catch (IOException | OverlappingFileLockException e) {
            return false;
        }
    }

    /** @return the text of a small regular file in {@code dir}, not followed if a link; empty if there is none */
    private static Optional<String> small(SecureDirectoryStream<Path> dir, Path name) throws IOException {
        try (SeekableByteChannel c = dir.newByteChannel(name, Set.of(StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS))) {
            ByteBuffer b = ByteBuffer.allocate(256);
            while (b.hasRemaining() && c.read(b) > 0) {
                // read up to 256 bytes
            }
            return Optional.of(new String(b.array(), 0, b.position(), StandardCharsets.UTF_8));
        } catch (NoSuchFileException e) {
            return Optional.empty();
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
                    Map<String, Object> a = Files.readAttributes(p, "unix:mode,ino,dev,size,lastModifiedTime,ctime",
                            LinkOption.NOFOLLOW_LINKS);
                    b.append(p).append(' ').append(a.get("mode")).append(' ').append(a.get("ino")).append(' ')
                            .append(a.get("dev")).append(' ').append(a.get("size")).append(' ')
                            .append(a.get("lastModifiedTime")).append(' ').append(a.get("ctime"));
                    if (((Integer) a.get("mode") & S_IFMT) == S_IFLNK) {
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
        sha.update(ByteBuffer.allocate(8).putLong(bytes.length).array());
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
        FileChannel lock = null;
        try {
            lock = FileChannel.open(dir.resolve(LOCK), Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
                    LinkOption.NOFOLLOW_LINKS), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            FileLock held = null;
            try {
                held = lock.tryLock();
            } catch (IOException e) {
                // A file system without locks: the directory is left unmarked, so no sweep ever takes it, and
                // it is removed when this JVM exits, as before there was a sweep. The sandbox's files matter more.
                LOG.log(System.Logger.Level.DEBUG, "cannot lock " + dir.resolve(LOCK) + ": " + e);
            }
            if (held != null) {
                privateFile(dir.resolve(LOCKED), THIS_PROCESS.getBytes(StandardCharsets.UTF_8));
            }
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
                json = Optional.of(privateFile(dir.resolve("seccomp.json"), profile.get().getBytes(StandardCharsets.UTF_8)));
            }
            Optional<Path> gvisorJson = Optional.empty();
            if (gvisorProfile.isPresent()) {
                gvisorJson = Optional.of(privateFile(dir.resolve("seccomp-gvisor.json"),
                        gvisorProfile.get().getBytes(StandardCharsets.UTF_8)));
            }
            SandboxFiles files = new SandboxFiles(dir, lock, held, etc, bpf, json, gvisorJson);
            Runtime.getRuntime().addShutdownHook(new Thread(files::delete, "toolyard-sandbox-files-cleanup"));
            return files;
        } catch (IOException | RuntimeException e) {
            deleteTree(dir);
            closeQuietly(lock);
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
