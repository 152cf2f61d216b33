package dev.toolyard;

import dev.toolyard.spi.PathDecision;
import dev.toolyard.spi.PathPolicy;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/**
 * Stage {@link Stage#CONTAINMENT}: isolation before paths. A tool that requires isolation on a host with no tier is refused
 * ({@code isolation_unavailable}) before its paths are resolved; then every declared path argument is
 * resolved by the path policy and must land inside the workspace ({@code path_escape}). The handler
 * gets the resolved path, in {@link ToolArgs#path} and as the argument's string. Immutable; thread-safe.
 */
final class ContainmentCheck implements Check<ParsedArgs, ContainedArgs> {
    private final PathPolicy paths;
    private final IsolationTier hostTier;

    ContainmentCheck(PathPolicy paths, IsolationTier hostTier) {
        this.paths = paths;
        this.hostTier = hostTier;
    }

    @Override
    public Stage stage() {
        return Stage.CONTAINMENT;
    }

    @Override
    public ContainedArgs apply(ParsedArgs in) {
        ToolSpec spec = in.spec();
        Call call = in.call();
        if (spec.requiresIsolation() && hostTier == IsolationTier.UNAVAILABLE) {
            return call.refuse(Reason.ISOLATION_UNAVAILABLE,
                    "the tool runs commands and this host has no isolation tier (container or bubblewrap)");
        }
        if (spec.pathArgs().isEmpty()) {
            return new ContainedArgs(in, Map.of());
        }
        Map<String, Path> resolved = new HashMap<>();
        for (Map.Entry<String, PathAccess> e : spec.pathArgs().entrySet()) {
            String argument = e.getKey();
            JsonNode value = in.arguments().get(argument);
            if (value == null || value.isNull()) {
                continue;
            }
            if (!value.isString()) {
                return call.refuse(Reason.PATH_ESCAPE, "argument '" + argument + "' is not a valid path");
            }
            PathDecision decision;
            try {
                decision = e.getValue() == PathAccess.READ
                        ? paths.resolveRead(value.stringValue(), call.context.workspace())
                        : paths.resolveWrite(value.stringValue(), call.context.workspace());
            } catch (RuntimeException ex) {
                decision = PathDecision.escape("could not be resolved");
            }
            if (!decision.isInside()) {
                return call.refuse(Reason.PATH_ESCAPE, "argument '" + argument + "' " + decision.refusal());
            }
            resolved.put(argument, decision.path());
        }
        for (Map.Entry<String, Path> p : resolved.entrySet()) {
            in.arguments().put(p.getKey(), p.getValue().toString());
        }
        return new ContainedArgs(in, resolved);
    }
}
