package dev.toolyard.policy;

import dev.toolyard.PathAccess;
import dev.toolyard.ToolSpec;
import dev.toolyard.builtins.BuiltinTools;
import java.nio.file.Path;
import java.util.List;

/** The committed workload, read as observed calls, and the built-in specs that name its path arguments. */
final class Fixture {
    private Fixture() {}

    static List<ObservedCall> calls(Path tmp) throws Exception {
        return CallSources.fromRecords(WorkloadTest.records(WorkloadTest.committed(tmp)));
    }

    static List<ToolSpec> specs() {
        return List.of(BuiltinTools.readFile().spec(), BuiltinTools.writeFile().spec(), BuiltinTools.listDir().spec());
    }

    static PolicySynthesizer synthesizer(Strictness s) {
        return PolicySynthesizer.of(s).pathArguments(specs());
    }

    static boolean isPath(ToolSpec spec, String arg) {
        return spec.pathArgs().get(arg) == PathAccess.READ || spec.pathArgs().get(arg) == PathAccess.WRITE;
    }
}
