package dev.toolyard.sandbox.internal;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.attribute.GroupPrincipal;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.UserPrincipal;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Hands a write root over to the uid a run's command runs as, before the run, so that the command
 * can change what is in it without anything outside it becoming writable: the write root and the
 * entries under it that root or another sandbox uid owns are given to the run's uid and gid with
 * {@code lchown}, nothing is {@code chmod}ed, and the write root's parents are never touched.
 *
 * <p>The walk never follows a symbolic link (it descends through directory descriptors, each
 * opened with {@code O_NOFOLLOW}, and changes an owner relative to its directory's descriptor), never
 * crosses into another file system (a mount point below the write root is left as it is, and so is
 * everything under it), and leaves alone:
 *
 * <ul>
 *   <li>a regular file with more than one hard link: a link to {@code /etc/shadow} planted in the
 *       workspace must not hand {@code /etc/shadow} to the sandbox;</li>
 *   <li>anything but regular files and directories: device nodes are never handed over, and the
 *       owner of a symbolic link, a pipe or a socket matters only in a sticky directory (the command
 *       may remove or replace them as the owner of the directory holding them);</li>
 *   <li>entries another user owns (not root, not a sandbox uid): they are that user's.</li>
 * </ul>
 *
 * {@code chown} by root clears the set-user-ID and set-group-ID bits of what it changes, so a
 * set-user-ID file planted in the workspace loses them. Stateless.
 */
public final class WriteRootHandover {
    private static final UserPrincipalLookupService NAMES = FileSystems.getDefault().getUserPrincipalLookupService();
    private static final String ATTRIBUTES = "unix:uid,gid,nlink,dev,mode,fileKey";
    private static final Map<Integer, UserPrincipal> USERS = new ConcurrentHashMap<>();
    private static final Map<Integer, GroupPrincipal> GROUPS = new ConcurrentHashMap<>();
    private static final int S_IFMT = 0170000;
    private static final int S_IFREG = 0100000;
    private static final int S_IFDIR = 0040000;

    private WriteRootHandover() {}

    /**
     * @param writeRoot the write root, a real path (no symbolic link in it)
     * @param lease the uid and gid to hand it to
     * @param ids the pool {@code lease} comes from: what its other uids own is handed over too
     * @return how many entries changed owner
     * @throws IllegalArgumentException if the write root is owned by neither root nor a sandbox uid: it
     *     belongs to another user, whom ToolYard will not take it from
     * @throws IOException if the write root cannot be read
     */
    public static int handOver(Path writeRoot, SandboxIds.Pair lease, SandboxIds ids) throws IOException {
        Map<String, Object> root = Files.readAttributes(writeRoot, ATTRIBUTES, LinkOption.NOFOLLOW_LINKS);
        int owner = (Integer) root.get("uid");
        if (owner != 0 && !ids.owns(owner)) {
            throw new IllegalArgumentException("writeRoot must be owned by root (this process) or by a sandbox uid ("
                    + ids + "), got " + writeRoot + " owned by uid " + owner
                    + ": ToolYard does not take a directory away from another user");
        }
        if (((Integer) root.get("mode") & S_IFMT) != S_IFDIR) {
            throw new IllegalArgumentException("writeRoot must be a directory, got " + writeRoot);
        }
        Owner to = new Owner(lease, user(lease.uid()), group(lease.gid()), ids, (Long) root.get("dev"));
        int changed = 0;
        // Opened from / one name at a time, never following a link, and changed through that descriptor: a
        // run whose write root holds this one may swap it (or a parent) for a link to /etc at any moment.
        try (SecureDirectoryStream<Path> dir = openDirectory(writeRoot)) {
            PosixFileAttributeView view = dir.getFileAttributeView(PosixFileAttributeView.class);
            if (!root.get("fileKey").equals(view.readAttributes().fileKey())) {
                throw new IOException("the write root was replaced while it was being handed over: " + writeRoot);
            }
            if (to.wants(root)) {
                view.setOwner(to.user);
                view.setGroup(to.group);
                changed++;
            }
            changed += walk(dir, writeRoot, to);
        }
        return changed;
    }

    /**
     * @return the principal of a sandbox uid, looked up once: the lookup reads the host's user database
     *     (about 0.05 ms a run here), and a sandbox uid's principal never changes
     */
    private static UserPrincipal user(int uid) throws IOException {
        return once(USERS, uid, NAMES::lookupPrincipalByName);
    }

    /** @return the principal of a sandbox gid, looked up once, as {@link #user} */
    private static GroupPrincipal group(int gid) throws IOException {
        return once(GROUPS, gid, NAMES::lookupPrincipalByGroupName);
    }

    private interface Lookup<P> {
        P byName(String name) throws IOException;
    }

    private static <P> P once(Map<Integer, P> found, int id, Lookup<P> lookup) throws IOException {
        P p = found.get(id);
        if (p == null) {
            p = lookup.byName(Integer.toUnsignedString(id));
            found.putIfAbsent(id, p);
        }
        return p;
    }

    /** @return {@code dir}, an absolute real path, opened from the root one name at a time with {@code O_NOFOLLOW} */
    private static SecureDirectoryStream<Path> openDirectory(Path dir) throws IOException {
        DirectoryStream<Path> top = Files.newDirectoryStream(dir.getRoot());
        if (!(top instanceof SecureDirectoryStream<Path> current)) {
            top.close();
            throw new UnsupportedOperationException("no secure directory streams on this platform: "
                    + "the write root cannot be handed over without following links");
        }
        try {
            for (Path name : dir) {
                SecureDirectoryStream<Path> next = current.newDirectoryStream(name, LinkOption.NOFOLLOW_LINKS);
                current.close();
                current = next;
            }
            return current;
        } catch (IOException | RuntimeException e) {
            current.close();
            throw e;
        }
    }

    private record Owner(SandboxIds.Pair lease, UserPrincipal user, GroupPrincipal group, SandboxIds ids, long dev) {
        /** @return whether this entry, root's or a sandbox uid's, is not yet the lease's */
        boolean wants(Map<String, Object> a) {
            int uid = (Integer) a.get("uid");
            int gid = (Integer) a.get("gid");
            boolean ours = uid == 0 || ids.owns(uid);
            return ours && (uid != lease.uid() || gid != lease.gid());
        }
    }

    private static int walk(SecureDirectoryStream<Path> dir, Path dirPath, Owner to) throws IOException {
        int changed = 0;
        for (Path entry : dir) {
            Path name = entry.getFileName();
            Map<String, Object> a;
            try {
                a = Files.readAttributes(dirPath.resolve(name), ATTRIBUTES, LinkOption.NOFOLLOW_LINKS);
            } catch (IOException e) {
                continue; // gone, or not ours to read
            }
            if ((Long) a.get("dev") != to.dev) {
                continue; // another file system mounted here: not handed over, not entered
            }
            int type = (Integer) a.get("mode") & S_IFMT;
            if (type != S_IFREG && type != S_IFDIR) {
                // Devices are never handed over; a link's owner matters only in a sticky directory, and the
                // command may remove or replace links, pipes and sockets as the owner of their directory.
                // (Changing an owner through a directory descriptor opens the entry: a pipe would block.)
                continue;
            }
            if (type == S_IFREG && (Integer) a.get("nlink") > 1) {
                continue; // a hard link to a file elsewhere: never hand that file over
            }
            if (to.wants(a)) {
                PosixFileAttributeView view = dir.getFileAttributeView(name, PosixFileAttributeView.class,
                        LinkOption.NOFOLLOW_LINKS);
                // The path was read through its parents' names, the change goes through the directory's
                // descriptor: change only the very file that was checked.
                try {
                    PosixFileAttributes now = view.readAttributes();
                    if (now.fileKey() != null && now.fileKey().equals(a.get("fileKey"))) {
                        view.setOwner(to.user);
                        view.setGroup(to.group);
                        changed++;
                    }
                } catch (IOException e) {
                    // replaced or removed while we looked: left as it is
                }
            }
            if (type == S_IFDIR) {
                try (SecureDirectoryStream<Path> sub = dir.newDirectoryStream(name, LinkOption.NOFOLLOW_LINKS)) {
                    changed += walk(sub, dirPath.resolve(name), to);
                } catch (IOException e) {
                    // replaced by something that is not a directory while we looked: nothing to enter
                }
            }
        }
        return changed;
    }
}
