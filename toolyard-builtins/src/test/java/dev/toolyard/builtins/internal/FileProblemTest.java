package dev.toolyard.builtins.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolyard.Reason;
import dev.toolyard.ToolOutput;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import org.junit.jupiter.api.Test;

class FileProblemTest {
    @Test
    void aMissingFileIsFileNotFound() throws IOException {
        FileProblem p = FileProblem.translate(new NoSuchFileException("/root/secret/a.txt"), "a.txt");

        assertThat(p.reason()).isEqualTo(Reason.FILE_NOT_FOUND);
        assertThat(p.detail()).isEqualTo("no such file or directory: a.txt");
    }

    @Test
    void eaccesEpermAndErofsArePermissionDeniedAndNameOnlyTheRelativePath() throws IOException {
        for (IOException e : new IOException[] {
            new AccessDeniedException("/root/secret/a.txt"),
            new FileSystemException("/root/secret/a.txt", null, "Operation not permitted"),
            new FileSystemException("/root/secret/a.txt", null, "Read-only file system"),
        }) {
            FileProblem p = FileProblem.translate(e, "a.txt");
            assertThat(p.reason()).isEqualTo(Reason.PERMISSION_DENIED);
            assertThat(p.detail()).isEqualTo("the operating system refused access to a.txt");
        }
    }

    @Test
    void anyOtherFailureIsRethrownForTheExecutorToReportByClassName() {
        IOException full = new IOException("No space left on device");
        FileSystemException loop = new FileSystemException("/w/a", null, "Too many levels of symbolic links");

        assertThatThrownBy(() -> FileProblem.translate(full, "a")).isSameAs(full);
        assertThatThrownBy(() -> FileProblem.translate(loop, "a")).isSameAs(loop);
    }

    @Test
    void aProblemBecomesARefusalOrAFailureByItsReason() {
        ToolOutput refused = new FileProblem(Reason.PATH_ESCAPE, "x").toOutput();
        ToolOutput failed = new FileProblem(Reason.NOT_UTF8, "y").toOutput();

        assertThat(refused.reason()).contains(Reason.PATH_ESCAPE);
        assertThat(refused.reasonDetail()).isEqualTo("x");
        assertThat(failed.reason()).contains(Reason.NOT_UTF8);
        assertThat(failed.reasonDetail()).isEqualTo("y");
    }

    @Test
    void aTimeoutIsNotAFileProblem() {
        assertThatThrownBy(() -> new FileProblem(Reason.TIMEOUT, "t")).isInstanceOf(IllegalArgumentException.class);
    }
}
