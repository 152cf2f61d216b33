package dev.toolyard.contracts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CustomTypesTest {
    @TempDir
    Path work;

    private static final String MANIFEST = """
            [tool]
            name = "triage"
            description = "Record a finding"
            dispatch = "callback"

            [args.severity]
            type = "severity_level"
            required = true

            [args.rate]
            type = "scan_rate"
            default = 100
            """;

    @Test
    void aCustomTypeValidatesAsItsBaseWithItsConstraints() {
        CustomTypes types = CustomTypes.load(Manifests.path("toolclad.toml"));
        assertThat(types.names()).containsExactlyInAnyOrder("severity_level", "scan_rate");
        ToolContract c = ToolContract.parse("triage.clad.toml", MANIFEST, types);
        assertThat(c.inputSchema()).contains("\"enum\":[\"info\",\"low\",\"medium\",\"high\",\"critical\"]")
                .contains("\"maximum\":10000");
        assertThat(c.dryRun("{\"severity\":\"high\",\"rate\":\"42\"}", Scope.none(), work).normalised())
                .isEqualTo("{\"rate\":42,\"severity\":\"high\"}");
        assertThat(c.dryRun("{\"severity\":\"urgent\"}", Scope.none(), work).refusal()).isPresent();
        assertThat(c.dryRun("{\"severity\":\"low\",\"rate\":0}", Scope.none(), work).refusal()).isPresent();
    }

    @Test
    void anUnknownTypeAndACustomTypeWithNetworkPolicyAreRefused() {
        assertThatThrownBy(() -> ToolContract.parse("triage.clad.toml", MANIFEST, CustomTypes.none()))
                .isInstanceOf(ContractException.class)
                .hasMessageContaining("[args.severity] type 'severity_level' is neither a built-in type");
        assertThatThrownBy(() -> CustomTypes.parse("toolclad.toml",
                "[types.target]\nbase = \"scope_target\"\nblock_internal = true\n"))
                .hasMessageContaining("cannot carry scope_check or block_internal");
        assertThatThrownBy(() -> CustomTypes.parse("toolclad.toml", "[types.x]\nbase = \"nope\"\n"))
                .hasMessageContaining("base must name a built-in type");
        assertThatThrownBy(() -> CustomTypes.parse("toolclad.toml", "[types.string]\nbase = \"string\"\n"))
                .hasMessageContaining("not a built-in type");
    }
}
