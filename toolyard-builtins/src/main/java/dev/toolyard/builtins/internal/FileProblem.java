package dev.toolyard.builtins.internal;

import dev.toolyard.Reason;
import dev.toolyard.ToolOutput;
import dev.toolyard.ToolStatus;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.util.Objects;

/**
 * An outcome of a file tool that the model must hear about ({@code file_not_found},
 * {@code path_escape}, ...), thrown inside a handler to unwind to the point where it becomes a
 * {@link ToolOutput}. It never leaves a handler. The detail names paths relative to their root only.
 * Immutable.
 */
public final class FileProblem extends Exception {
    private static final long serialVersionUID = 1L;

    /**
     * The reason text the JDK gives for {@code EPERM} and {@code EROFS} (from {@code strerror}, so only
     * when the C library speaks English). Both mean the operating system refused the operation
     * whoever asked: an immutable file, a read-only mount.
     */
    private static final String EPERM = "Operation not permitted";
    private static final String EROFS = "Read-only file system";

    /** The refusal's or failure's reason. */
    private final Reason reason;
    /** What the model may learn about it. */
    private final String detail;

    /**
     * @param reason a reason whose status is {@link ToolStatus#REFUSED} or {@link ToolStatus#FAILED}
     * @param detail what the model may learn; never {@code null}; must not name a root
     */
    public FileProblem(Reason reason, String detail) {
        super(detail, null, false, false);
        this.reason = Objects.requireNonNull(reason, "reason");
        this.detail = Objects.requireNonNull(detail, "detail");
        if (reason.status() != ToolStatus.REFUSED && reason.status() != ToolStatus.FAILED) {
            throw new IllegalArgumentException("a file problem is a refusal or a failure, not " + reason);
        }
    }

    /** @return the reason; never {@code null} */
    public Reason reason() {
        return reason;
    }

    /** @return the detail; never {@code null} */
    public String detail() {
        return detail;
    }

    /** @return the problem as a handler's output */
    public ToolOutput toOutput() {
        return reason.status() == ToolStatus.REFUSED
                ? ToolOutput.refused(reason, detail)
                : ToolOutput.failed(reason, detail);
    }

    /**
     * Translates the I/O failures a model can cause into their reasons: a missing file and a refusal
     * by the operating system. Anything else is not the model's doing and stays an exception, which
     * the executor reports as {@code handler_error} by class name only.
     *
     * @param e the failure
     * @param display the path concerned, relative to its root
     * @return the problem
     * @throws IOException {@code e} itself, when it is none of those
     */
    static FileProblem translate(IOException e, String display) throws IOException {
        if (e instanceof NoSuchFileException) {
            return new FileProblem(Reason.FILE_NOT_FOUND, "no such file or directory: " + display);
        }
        if (deniedByTheSystem(e)) {
            return new FileProblem(Reason.PERMISSION_DENIED, "the operating system refused access to " + display);
        }
        throw e;
    }

    static boolean deniedByTheSystem(IOException e) {
        if (e instanceof AccessDeniedException) {
            return true;
        }
        if (e instanceof FileSystemException f && f.getReason() != null) {
            return f.getReason().equals(EPERM) || f.getReason().equals(EROFS);
        }
        return false;
    }
}
