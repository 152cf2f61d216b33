package dev.toolyard.policy;

import java.util.Optional;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolyard.Reason;
import dev.toolyard.ToolCallRecord;
import dev.toolyard.ToolStatus;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CallSourcesTest {
    @TempDir
    Path tmp;

    private static ToolCallRecord record(String args, String sha, boolean redacted, ToolStatus status, Reason reason) {
        return new ToolCallRecord("c", "inv", "t", status, Optional.ofNullable(reason), "", args, sha, redacted, "", Instant.EPOCH,
                Duration.ZERO, "", "", "bot", "", "");
    }

    private static Path traces(String name) throws URISyntaxException {
        return Path.of(CallSourcesTest.class.getResource("/dev/toolyard/policy/traces/" + name).toURI());
    }

    @Test
    void redactedAndSizeCappedArgumentsAreReadAsNotCapturedAndRefusedCallsAsNotAdmitted() {
        List<ObservedCall> calls = CallSources.fromRecords(List.of(
                record("{\"path\":\"a.md\"}", "x".repeat(64), false, ToolStatus.OK, null),
                record("{\"redacted\":true}", "x".repeat(64), true, ToolStatus.OK, null),
                record("{\"omitted\":true,\"bytes\":20000}", "x".repeat(64), false, ToolStatus.OK, null),
                record("{\"path\":\"../x\"}", "x".repeat(64), false, ToolStatus.REFUSED, Reason.PATH_ESCAPE),
                record("{\"path\":\"gone.md\"}", "x".repeat(64), false, ToolStatus.FAILED, Reason.FILE_NOT_FOUND)));

        assertThat(calls).extracting(c -> c.arguments() != null).containsExactly(true, false, false, true, true);
        assertThat(calls).extracting(ObservedCall::admitted).containsExactly(true, true, true, false, true);
        assertThat(calls).extracting(ObservedCall::agent).containsOnly("bot");
    }

    @Test
    void argumentsAModelSentThatLookLikeTheSizeMarkerAreStillArguments() {
        String text = "{\"omitted\":true,\"bytes\":20000}";
        ObservedCall marker = CallSources.fromRecords(List.of(record(text, "0".repeat(64), false, ToolStatus.OK, null)))
                .get(0);
        String realDigest = java.util.HexFormat.of().formatHex(sha256(text));
        ObservedCall sent = CallSources.fromRecords(List.of(record(text, realDigest, false, ToolStatus.OK, null))).get(0);

        assertThat(marker.arguments()).as("the executor's marker: the digest is of other text").isNull();
        assertThat(sent.arguments()).as("the model sent exactly this: the digest is of this text").isNotNull();
    }

    private static byte[] sha256(String s) {
        try {
            return java.security.MessageDigest.getInstance("SHA-256").digest(s.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void executeToolSpansAreReadWithTheirAgentInvocationAndArgumentsAndOtherSpansAreIgnored() throws Exception {
        List<ObservedCall> calls = CallSources.fromTraces(traces("captured.json"));

        assertThat(calls).extracting(ObservedCall::tool).containsExactly("read_file", "read_file", "lookup_order");
        assertThat(calls).extracting(ObservedCall::agent).containsOnly("support");
        assertThat(calls).extracting(ObservedCall::invocationId)
                .containsExactly("0af7651916cd43dd8448eb211c80319c", "0af7651916cd43dd8448eb211c80319c",
                        "1af7651916cd43dd8448eb211c80319c");
        assertThat(calls).extracting(ObservedCall::admitted).containsExactly(true, false, true);
        assertThat(calls.get(2).arguments().get("order_id").intValue()).isEqualTo(1042);
    }

    @Test
    void spansWithoutCapturedArgumentsGiveANameOnlyPolicy() throws Exception {
        List<ObservedCall> calls = CallSources.fromTraces(traces("uncaptured.jsonl"));
        Policy p = PolicySynthesizer.of(Strictness.BALANCED).synthesize(calls, "traces");

        assertThat(calls).hasSize(2).allMatch(c -> c.arguments() == null);
        assertThat(p.uncapturedRules()).containsExactly("support/search_kb");
    }

    @Test
    void aDirectoryIsReadInNameOrderAndAFileThatIsNotOtlpIsNamed() throws Exception {
        assertThat(CallSources.fromTraces(traces("captured.json").getParent())).hasSize(5);
        Path bad = Files.writeString(tmp.resolve("bad.json"), "{\"spans\":[]}");
        assertThatThrownBy(() -> CallSources.fromTraces(bad)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("bad.json").hasMessageContaining("resourceSpans");
    }
}
