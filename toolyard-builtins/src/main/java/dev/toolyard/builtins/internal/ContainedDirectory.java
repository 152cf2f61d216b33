package dev.toolyard.builtins.internal;

import dev.toolyard.Reason;
import java.io.Closeable;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

/**
 * An open directory inside a workspace root, reached from the root one name at a time without
 * following a symbolic link. Each step is an {@code openat} relative to the directory before it with
 * {@code O_NOFOLLOW} (the JDK's {@link SecureDirectoryStream}), and each file is opened, examined,
 * created, renamed and deleted relative to the directory that holds it. So a link swapped into the
 * path after the executor resolved it is refused, never followed out of the root, and nothing below
 * the root is ever looked up by its full path.
 *
 * <p>Every name is examined ({@code fstatat}, no follow) before it is opened, so a FIFO or a device is
 * refused without being opened. One window remains: a FIFO swapped in between the examination and
 * the open makes the open block; the executor's deadline still ends the call.
 *
 * <p>Needs a platform whose directory streams are secure (Linux, macOS); elsewhere opening a root
 * throws {@link UnsupportedOperationException}. Not thread-safe; close it when done.
 */
public final class ContainedDirectory implements Closeable {
    private static final System.Logger LOG = System.getLogger(ContainedDirectory.class.getName());
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final char[] HEX = "0123456789abcdef".toCharArray();
    /** Prefix of the temporary names this class creates, so that a listing can tell them apart. */
    public static final String TEMPORARY_PREFIX = ".toolyard-";

    private static final int CREATE_ATTEMPTS = 8;

    private final SecureDirectoryStream<Path> stream;
    private final Path path;
    private final List<String> names;

    private ContainedDirectory(SecureDirectoryStream<Path> stream, Path path, List<String> names) {
        this.stream = stream;
        this.path = path;
        this.names = names;
    }

    /**
     * Opens a workspace root: the one directory looked up by its full path. It is the real path the
     * application configured, so links in it are the application's own.
     *
     * @param root the real root; never {@code null}
     * @return the open root
     * @throws FileProblem {@code file_not_found} or {@code permission_denied}
     * @throws UnsupportedOperationException if the platform has no secure directory streams
     * @throws IOException any other failure
     */
    public static ContainedDirectory openRoot(Path root) throws FileProblem, IOException {
        DirectoryStream<Path> opened;
        try {
            opened = Files.newDirectoryStream(root);
        } catch (NotDirectoryException | NoSuchFileException e) {
            throw new FileProblem(Reason.FILE_NOT_FOUND, "the workspace root does not exist or is not a directory");
        } catch (IOException e) {
            if (FileProblem.deniedByTheSystem(e)) {
                throw new FileProblem(Reason.PERMISSION_DENIED,
                        "the operating system refused access to the workspace root");
            }
            throw e;
        }
        if (!(opened instanceof SecureDirectoryStream)) {
            opened.close();
            throw new UnsupportedOperationException(
                    "the file tools need secure directory streams (openat), which this platform lacks");
        }
        @SuppressWarnings("unchecked")
        SecureDirectoryStream<Path> secure = (SecureDirectoryStream<Path>) opened;
        return new ContainedDirectory(secure, root, List.of());
    }

    /**
     * @param name a plain file name
     * @throws IllegalArgumentException if it is empty, {@code .}, {@code ..}, or holds {@code /} or NUL
     */
    static void requirePlainName(String name) {
        Objects.requireNonNull(name, "name");
        if (name.isEmpty() || name.equals(".") || name.equals("..") || name.indexOf('/') >= 0
                || name.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("not a plain file name: '" + name + "'");
        }
    }

    /** @return the names from the root to this directory; empty for the root; unmodifiable */
    public List<String> names() {
        return names;
    }

    /** @return this directory relative to its root, for details; {@code .} for the root */
    public String display() {
        return RootedPath.display(names);
    }

    /**
     * @param name a name in this directory
     * @return that entry relative to the root, for details
     */
    public String display(String name) {
        return RootedPath.display(childNames(name));
    }

    private List<String> childNames(String name) {
        List<String> child = new ArrayList<>(names.size() + 1);
        child.addAll(names);
        child.add(name);
        return Collections.unmodifiableList(child);
    }

    /**
     * Examines an entry without following it ({@code fstatat} with {@code AT_SYMLINK_NOFOLLOW}).
     *
     * @param name a plain name in this directory
     * @return its attributes, or empty when there is no such entry
     * @throws FileProblem {@code permission_denied}
     * @throws IOException any other failure
     */
    public Optional<BasicFileAttributes> attributes(String name) throws FileProblem, IOException {
        requirePlainName(name);
        try {
            return Optional.of(stream.getFileAttributeView(Path.of(name), BasicFileAttributeView.class,
                    LinkOption.NOFOLLOW_LINKS).readAttributes());
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw FileProblem.translate(e, display(name));
        }
    }

    /**
     * Opens a subdirectory: examined first, then opened without following a link.
     *
     * @param name a plain name in this directory
     * @return the open subdirectory; the caller closes it
     * @throws FileProblem {@code file_not_found} (missing or not a directory), {@code path_escape} (a
     *     symbolic link), {@code permission_denied}
     * @throws IOException any other failure
     */
    public ContainedDirectory openDirectory(String name) throws FileProblem, IOException {
        BasicFileAttributes a = attributes(name).orElseThrow(() -> notFound(display(name)));
        if (a.isSymbolicLink()) {
            throw linkRefused(display(name));
        }
        if (!a.isDirectory()) {
            throw new FileProblem(Reason.FILE_NOT_FOUND, display(name) + " is not a directory");
        }
        try {
            SecureDirectoryStream<Path> child = stream.newDirectoryStream(Path.of(name), LinkOption.NOFOLLOW_LINKS);
            return new ContainedDirectory(child, path.resolve(name), childNames(name));
        } catch (NotDirectoryException e) {
            throw new FileProblem(Reason.FILE_NOT_FOUND, display(name) + " is not a directory");
        } catch (IOException e) {
            throw afterFailedOpen(e, name);
        }
    }

    /**
     * Walks down from this directory, each step as {@link #openDirectory(String)}.
     *
     * @param path plain names below this directory; may be empty
     * @return the last directory, opened anew (this one stays open); the caller closes it
     * @throws FileProblem as {@link #openDirectory(String)}
     * @throws IOException any other failure
     */
    public ContainedDirectory walk(List<String> path) throws FileProblem, IOException {
        return walk(path, null);
    }

    /**
     * Walks down from this directory, creating each missing directory on the way (see
     * {@link #createDirectory(String, ContainedDirectory)}).
     *
     * @param path plain names below this directory; may be empty
     * @param root the open root of this directory's workspace; never {@code null}
     * @return the last directory, opened anew; the caller closes it
     * @throws FileProblem as {@link #openDirectory(String)}
     * @throws IOException any other failure
     */
    public ContainedDirectory walkCreating(List<String> path, ContainedDirectory root) throws FileProblem, IOException {
        return walk(path, Objects.requireNonNull(root, "root"));
    }

    private ContainedDirectory walk(List<String> path, ContainedDirectory creatingWith)
            throws FileProblem, IOException {
        ContainedDirectory current = reopen();
        try {
            for (String name : path) {
                if (creatingWith != null && current.attributes(name).isEmpty()) {
                    current.createDirectory(name, creatingWith);
                }
                ContainedDirectory next = current.openDirectory(name);
                current.close();
                current = next;
            }
            return current;
        } catch (FileProblem | IOException | RuntimeException e) {
            closeQuietly(current, e);
            throw e;
        }
    }

    private ContainedDirectory reopen() throws IOException {
        SecureDirectoryStream<Path> again = stream.newDirectoryStream(Path.of("."), LinkOption.NOFOLLOW_LINKS);
        return new ContainedDirectory(again, path, names);
    }

    /**
     * Creates a subdirectory without ever naming it by a path below the root: the new directory is
     * made under a random name directly in the root (the only full path used), then renamed into this
     * directory relative to both open directories. If something else appears under the name
     * meanwhile, that is left for {@link #openDirectory(String)} to judge; if the name keeps changing,
     * it tries a few times before giving up.
     *
     * @param name a plain name in this directory
     * @param root the open root of this directory's workspace, on the same file system; never {@code null}
     * @throws FileProblem {@code permission_denied}
     * @throws IOException any other failure
     */
    public void createDirectory(String name, ContainedDirectory root) throws FileProblem, IOException {
        requirePlainName(name);
        if (!root.names.isEmpty()) {
            throw new IllegalArgumentException("root must be the open root, not " + root.display());
        }
        for (int attempt = 1; ; attempt++) {
            String temporary = temporaryName();
            try {
                Files.createDirectory(root.path.resolve(temporary));
            } catch (IOException e) {
                throw FileProblem.translate(e, display(name));
            }
            try {
                root.stream.move(Path.of(temporary), stream, Path.of(name));
                return;
            } catch (IOException e) {
                try {
                    root.stream.deleteDirectory(Path.of(temporary));
                } catch (IOException cleanup) {
                    e.addSuppressed(cleanup);
                }
                if (attributes(name).isPresent()) {
                    return; // something took the name meanwhile; openDirectory judges what it is
                }
                // Taken when renamed, free again now: the name is being changed under us. Try again a few times.
                if (attempt == CREATE_ATTEMPTS || e instanceof NoSuchFileException
                        || FileProblem.deniedByTheSystem(e)) {
                    throw FileProblem.translate(e, display(name));
                }
            }
        }
    }

    /**
     * Opens a file without following a link. Examine it first with {@link #attributes(String)}: an
     * open does not check what kind of file it is.
     *
     * @param name a plain name in this directory
     * @param options how to open it; {@code NOFOLLOW_LINKS} is always added
     * @param attributes attributes for a file created by the open
     * @return the channel; the caller closes it
     * @throws FileProblem {@code file_not_found}, {@code permission_denied}, {@code path_escape} (a link)
     * @throws IOException any other failure, {@link java.nio.file.FileAlreadyExistsException} included
     */
    public FileChannel openFile(String name, Set<? extends OpenOption> options, FileAttribute<?>... attributes)
            throws FileProblem, IOException {
        requirePlainName(name);
        Set<OpenOption> all = new HashSet<>(options);
        all.add(LinkOption.NOFOLLOW_LINKS);
        SeekableByteChannel channel;
        try {
            channel = stream.newByteChannel(Path.of(name), all, attributes);
        } catch (java.nio.file.FileAlreadyExistsException e) {
            throw e;
        } catch (IOException e) {
            throw afterFailedOpen(e, name);
        }
        if (!(channel instanceof FileChannel)) {
            channel.close();
            throw new IOException("the platform did not open a file channel");
        }
        return (FileChannel) channel;
    }

    /**
     * Explains a failed open. An open refused by {@code O_NOFOLLOW} fails with {@code ELOOP}, which the
     * JDK reports as a plain I/O error: it is recognised by the fixed English suffix the JDK appends to
     * the system's message, and, should that text ever change, by looking at the entry again.
     */
    private FileProblem afterFailedOpen(IOException e, String name) throws IOException {
        if (e instanceof NoSuchFileException || FileProblem.deniedByTheSystem(e)) {
            return FileProblem.translate(e, display(name));
        }
        if (refusedAsLink(e)) {
            return linkRefused(display(name));
        }
        Optional<BasicFileAttributes> now;
        try {
            now = attributes(name);
        } catch (FileProblem | IOException again) {
            e.addSuppressed(again);
            throw e;
        }
        if (now.isPresent() && now.get().isSymbolicLink()) {
            return linkRefused(display(name));
        }
        throw e;
    }

    /** Whether the JDK reported {@code ELOOP} for an open or a directory open with {@code NOFOLLOW_LINKS}. */
    static boolean refusedAsLink(IOException e) {
        String text = e instanceof FileSystemException f ? f.getReason() : e.getMessage();
        return text != null && (text.endsWith("(NOFOLLOW_LINKS specified)")
                || text.endsWith("unable to access attributes of symbolic link"));
    }

    /**
     * @param name a plain name in this directory
     * @return its POSIX permissions, or empty when the platform has none
     * @throws IOException if it cannot be read
     */
    public Optional<Set<PosixFilePermission>> permissions(String name) throws IOException {
        requirePlainName(name);
        PosixFileAttributeView view = stream.getFileAttributeView(Path.of(name), PosixFileAttributeView.class,
                LinkOption.NOFOLLOW_LINKS);
        return view == null ? Optional.empty() : Optional.of(view.readAttributes().permissions());
    }

    /**
     * Sets POSIX permissions on a file this process just created (exactly, umask aside).
     *
     * @param name a plain name in this directory
     * @param permissions the permissions; never {@code null}
     * @throws IOException if they cannot be set
     */
    public void setPermissions(String name, Set<PosixFilePermission> permissions) throws IOException {
        requirePlainName(name);
        PosixFileAttributeView view = stream.getFileAttributeView(Path.of(name), PosixFileAttributeView.class,
                LinkOption.NOFOLLOW_LINKS);
        if (view != null) {
            view.setPermissions(permissions);
        }
    }

    /**
     * Renames an entry within this directory ({@code renameat}): atomic, replacing a file of the target
     * name.
     *
     * @param from a plain name in this directory
     * @param to a plain name in this directory
     * @throws FileProblem {@code permission_denied}, {@code file_not_found}
     * @throws IOException any other failure
     */
    public void rename(String from, String to) throws FileProblem, IOException {
        requirePlainName(from);
        requirePlainName(to);
        try {
            stream.move(Path.of(from), stream, Path.of(to));
        } catch (IOException e) {
            throw FileProblem.translate(e, display(to));
        }
    }

    /**
     * Deletes a file ({@code unlinkat}); a missing one is not an error.
     *
     * @param name a plain name in this directory
     * @throws IOException if it cannot be deleted
     */
    public void deleteIfPresent(String name) throws IOException {
        requirePlainName(name);
        try {
            stream.deleteFile(Path.of(name));
        } catch (NoSuchFileException e) {
            // already gone
        }
    }

    /**
     * Flushes this directory's entries to disk, so a rename in it survives a crash. Best effort: a
     * file system that cannot sync a directory is logged, not failed, because the rename is already
     * atomic for every reader.
     */
    public void sync() {
        try (SeekableByteChannel self = stream.newByteChannel(Path.of("."), Set.of(StandardOpenOption.READ))) {
            if (self instanceof FileChannel channel) {
                channel.force(true);
            }
        } catch (IOException e) {
            LOG.log(System.Logger.Level.WARNING, "could not sync a workspace directory: {0}", e.getClass().getName());
        }
    }

    /**
     * Reads the names in this directory, once, in the order the file system gives them.
     *
     * @param each receives each name; never {@code null}
     * @throws FileProblem {@code permission_denied}
     * @throws IOException any other failure
     */
    public void forEachName(Consumer<String> each) throws FileProblem, IOException {
        try {
            Iterator<Path> it = stream.iterator();
            while (it.hasNext()) {
                each.accept(it.next().getFileName().toString());
            }
        } catch (DirectoryIteratorException e) {
            throw FileProblem.translate(e.getCause(), display());
        }
    }

    /** @return a fresh name for a temporary entry: fixed length, so it fits wherever the target fits */
    public static String temporaryName() {
        byte[] random = new byte[16];
        RANDOM.nextBytes(random);
        StringBuilder b = new StringBuilder(TEMPORARY_PREFIX.length() + 36).append(TEMPORARY_PREFIX);
        for (byte x : random) {
            b.append(HEX[(x >> 4) & 0xF]).append(HEX[x & 0xF]);
        }
        return b.append(".tmp").toString();
    }

    /**
     * @param display the path concerned, relative to its root
     * @return the {@code path_escape} refusal for a symbolic link met after the path was checked
     */
    public static FileProblem linkRefused(String display) {
        return new FileProblem(Reason.PATH_ESCAPE,
                display + " is a symbolic link; links are never followed once a path was checked");
    }

    /**
     * @param display the path concerned, relative to its root
     * @return the {@code file_not_found} failure
     */
    public static FileProblem notFound(String display) {
        return new FileProblem(Reason.FILE_NOT_FOUND, "no such file or directory: " + display);
    }

    private static void closeQuietly(ContainedDirectory d, Throwable primary) {
        try {
            d.close();
        } catch (IOException e) {
            primary.addSuppressed(e);
        }
    }

    @Override
    public void close() throws IOException {
        stream.close();
    }

    @Override
    public String toString() {
        return "ContainedDirectory[" + display() + "]";
    }
}
