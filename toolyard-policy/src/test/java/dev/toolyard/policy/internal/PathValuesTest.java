package dev.toolyard.policy.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PathValuesTest {
    @Test
    void normalFormsResolveDotsAndEmptySegmentsAndAClimbAboveTheWorkspaceHasNone() {
        assertThat(PathValues.normalize("docs/./a//b.md")).isEqualTo("docs/a/b.md");
        assertThat(PathValues.normalize("docs/../notes/x")).isEqualTo("notes/x");
        assertThat(PathValues.normalize(".")).isEqualTo(".");
        assertThat(PathValues.normalize("/etc/../etc/passwd")).isEqualTo("/etc/passwd");
        assertThat(PathValues.normalize("../x")).isNull();
        assertThat(PathValues.normalize("a/../../x")).isNull();
        assertThat(PathValues.normalize("")).isNull();
        assertThat(PathValues.normalize("a\u0000b")).isNull();
    }

    @Test
    void prefixesMatchByWholeSegmentsNeverByStringPrefix() {
        assertThat(PathValues.under("docs/a.md", "docs")).isTrue();
        assertThat(PathValues.under("docs", "docs")).isTrue();
        assertThat(PathValues.under("docs2/a.md", "docs")).isFalse();
        assertThat(PathValues.under("docs/a.md", ".")).isTrue();
        assertThat(PathValues.under("/etc/passwd", ".")).as("the workspace prefix is relative only").isFalse();
        assertThat(PathValues.under("/data/x", "/data")).isTrue();
        assertThat(PathValues.under("/database/x", "/data")).isFalse();
    }

    @Test
    void parentAndFirstSegmentAreWhatTightAndBalancedGeneraliseTo() {
        assertThat(PathValues.parent("docs/api/a.md")).isEqualTo("docs/api");
        assertThat(PathValues.parent("a.md")).isEqualTo(".");
        assertThat(PathValues.first("docs/api/a.md")).isEqualTo("docs");
        assertThat(PathValues.first("/srv/data/x")).isEqualTo("/srv");
    }
}
