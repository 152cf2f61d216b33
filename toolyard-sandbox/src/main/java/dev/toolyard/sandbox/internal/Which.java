package dev.toolyard.sandbox.internal;

import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/** Finds an executable by name on a search path, as a shell would. Immutable. Thread-safe. */
public final class Which implements Function<String, Optional<Path>> {
    /** The search path used when the process has no {@code PATH}. */
    public static final String FALLBACK_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

    private final List<Path> dirs;

    private Which(List<Path> dirs) {
        this.dirs = List.copyOf(dirs);
    }

    /** @return a search of this process's {@code PATH}, or {@link #FALLBACK_PATH} when it has none */
    public static Which processPath() {
        String path = System.getenv("PATH");
        return of(path == null || path.isBlank() ? FALLBACK_PATH : path);
    }

    /**
     * @param searchPath directories separated by {@code :}; relative and empty entries are ignored,
     *     so the working directory is never searched
     * @return a search of those directories, in order
     */
    public static Which of(String searchPath) {
        List<Path> dirs = new ArrayList<>();
        for (String entry : searchPath.split(":")) {
            try {
                Path p = Path.of(entry);
                if (!entry.isEmpty() && p.isAbsolute()) {
                    dirs.add(p);
                }
            } catch (InvalidPathException e) {
                // an entry that is not a path names no directory
            }
        }
        return new Which(dirs);
    }

    /** @return the first executable regular file named {@code name}; empty for names with a slash */
    @Override
    public Optional<Path> apply(String name) {
        if (name == null || name.isEmpty() || name.indexOf('/') >= 0 || name.indexOf('\0') >= 0) {
            return Optional.empty();
        }
        for (Path dir : dirs) {
            Path candidate = dir.resolve(name);
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    @Override
    public String toString() {
        return "Which" + dirs;
    }
}
