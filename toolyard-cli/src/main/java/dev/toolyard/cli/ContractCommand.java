package dev.toolyard.cli;

import dev.toolyard.EgressClass;
import dev.toolyard.HandlerMode;
import dev.toolyard.SandboxPaths;
import dev.toolyard.Tool;
import dev.toolyard.ToolCallRequest;
import dev.toolyard.ToolContext;
import dev.toolyard.ToolExecutor;
import dev.toolyard.ToolRegistry;
import dev.toolyard.ToolResult;
import dev.toolyard.ToolStatus;
import dev.toolyard.builtins.CommandNetwork;
import dev.toolyard.builtins.FetchLimits;
import dev.toolyard.builtins.Resolver;
import dev.toolyard.contracts.ContractException;
import dev.toolyard.contracts.CustomTypes;
import dev.toolyard.builtins.HttpEgress;
import dev.toolyard.contracts.Scope;
import dev.toolyard.contracts.ToolContract;
import dev.toolyard.spi.Json;
import dev.toolyard.sandbox.TieredSandbox;
import dev.toolyard.store.jdbc.JdbcToolCallStore;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import javax.net.SocketFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/** {@code toolyard contract}: validate, show the schema of, dry-run and run a ToolClad manifest. */
@Command(name = "contract", description = "Work with ToolClad manifests (.clad.toml): validate, schema, test (dry run),"
        + " run (through the executor).",
        subcommands = {ContractCommand.Validate.class, ContractCommand.Schema.class, ContractCommand.Test.class,
                ContractCommand.Run.class})
final class ContractCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** What every subcommand takes: the manifest and, optionally, the project's custom types. */
    abstract static class Base {
        @Spec
        CommandSpec spec;

        @Parameters(index = "0", paramLabel = "FILE", description = "The manifest, a .clad.toml file.")
        Path file;

        @Option(names = "--types", paramLabel = "TOOLCLAD_TOML", description = "A toolclad.toml with custom types.")
        Path types;

        ToolContract load() {
            if (!Files.isRegularFile(file)) {
                throw new Main.UserError("manifest " + file + " is not a file");
            }
            try {
                return ToolContract.load(file, types == null ? CustomTypes.none() : CustomTypes.load(types));
            } catch (ContractException e) {
                throw new Main.UserError(e.getMessage());
            } catch (UncheckedIOException e) {
                throw new Main.UserError(e.getMessage());
            }
        }

        PrintWriter out() {
            return spec.commandLine().getOut();
        }
    }

    /** What test and run take beyond the manifest: the arguments and the scope. */
    abstract static class WithArgs extends Base {
        @Option(names = "--arg", paramLabel = "NAME=VALUE", description = "An argument, as a model would send it"
                + " (a string; numeric and boolean types accept strings); repeatable.")
        List<String> args = new ArrayList<>();

        @Option(names = "--scope", paramLabel = "SCOPE_TOML", description = "The scope file for scope_check arguments.")
        Path scope;

        String argumentsJson() {
            Map<String, String> m = new LinkedHashMap<>();
            for (String a : args) {
                int eq = a.indexOf('=');
                if (eq <= 0) {
                    throw new Main.UserError("--arg must be NAME=VALUE, got '" + a + "'");
                }
                m.put(a.substring(0, eq), a.substring(eq + 1));
            }
            ObjectNode n = Json.MAPPER.createObjectNode();
            m.forEach(n::put);
            return n.toString();
        }

        Scope scope() {
            try {
                return scope == null ? Scope.none() : Scope.load(scope);
            } catch (ContractException | UncheckedIOException e) {
                throw new Main.UserError(e.getMessage());
            }
        }
    }

    @Command(name = "validate", description = "Load a manifest with every check; print its name, backend and warnings.")
    static final class Validate extends Base implements Callable<Integer> {
        @Override
        public Integer call() {
            ToolContract c = load();
            out().println("ok: " + c.name() + " (" + c.backend() + ")");
            for (String w : c.warnings()) {
                out().println("warning: " + w);
            }
            return 0;
        }
    }

    @Command(name = "schema", description = "Print the MCP-style input and output schema the model sees.")
    static final class Schema extends Base implements Callable<Integer> {
        @Override
        public Integer call() {
            ToolContract c = load();
            ObjectNode n = Json.MAPPER.createObjectNode();
            n.put("name", c.name());
            n.put("description", c.spec().description());
            n.set("inputSchema", Json.MAPPER.readTree(c.inputSchema()));
            n.set("outputSchema", Json.MAPPER.readTree(c.outputSchema()));
            out().println(Json.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(n));
            return 0;
        }
    }

    @Command(name = "test", description = "Dry run: validate the arguments and print the argv; runs nothing. Exits 1"
            + " when the arguments are refused.")
    static final class Test extends WithArgs implements Callable<Integer> {
        @Option(names = "--workspace", description = "Where credential_file arguments are looked up (default: .).")
        Path workspace = Path.of(".");

        @Override
        public Integer call() {
            ToolContract c = load();
            ToolContract.DryRun d;
            try {
                d = c.dryRun(argumentsJson(), scope(), workspace.toAbsolutePath());
            } catch (ContractException e) {
                throw new Main.UserError(e.getMessage());
            }
            ObjectNode n = Json.MAPPER.createObjectNode();
            n.put("tool", c.name());
            if (d.refusal().isPresent()) {
                n.put("refused", d.refusal().get());
            } else {
                ArrayNode a = n.putArray(c.backend().equals("http") ? "request" : "argv");
                d.argv().forEach(a::add);
                n.set("arguments", Json.MAPPER.readTree(d.normalised()));
            }
            out().println(Json.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(n));
            return d.refusal().isPresent() ? 1 : 0;
        }
    }

    @Command(name = "run", description = "Run the contract once through the executor (command contracts on the"
            + " isolation ladder); the call is recorded and its result printed as JSON. Exits 0 when it ended OK.")
    static final class Run extends WithArgs implements Callable<Integer> {
        @Option(names = "--workspace", required = true, description = "The write root: an existing directory.")
        Path workspace;

        @Option(names = "--store", description = "SQLite file for the record (default: ${DEFAULT-VALUE}).")
        Path store = Path.of(System.getProperty("user.home"), ".toolyard", "records.db");

        @Option(names = "--allow-host", description = "A host an [http] contract may reach; repeatable. None:"
                + " loopback only.")
        List<String> allowHosts = new ArrayList<>();

        @Option(names = Toolbox.COMMAND_HOST_OPTION, description = "A host a [command] contract's command may reach,"
                + " through ToolYard's allowlisting proxy, as for 'toolyard call'; repeatable: a name, *.suffix, or an IP"
                + " literal, each optionally :port (else 80 and 443). None: the command has no network.")
        List<String> commandHosts = new ArrayList<>();

        @Option(names = "--timeout", description = "Seconds the call may run (default: ${DEFAULT-VALUE}).")
        long timeoutSeconds = 60;

        @Option(names = "--image", description = "Container image the container rung uses (default: ${DEFAULT-VALUE}).")
        String image = HostMachine.DEFAULT_IMAGE;

        @Mixin
        TierOption tier;

        @Option(names = "--approve", description = "Approve the call if the contract needs approval (human_approval,"
                + " or risk_tier high or critical), without asking.")
        boolean approve;

        @Override
        public Integer call() throws Exception {
            tier.lowest(); // a wrong --tier or --lowest-tier is said before anything is read or runs
            ToolContract c = load();
            if (!Files.isDirectory(workspace)) {
                throw new Main.UserError("workspace " + workspace + " is not an existing directory");
            }
            if (timeoutSeconds <= 0) {
                throw new Main.UserError("--timeout must be positive, got " + timeoutSeconds);
            }
            if (!commandHosts.isEmpty() && !c.backend().equals("command")) {
                throw new Main.UserError(Toolbox.COMMAND_HOST_OPTION + " gives a [command] contract's command network; "
                        + c.name() + " is a " + c.backend() + " contract" + (c.backend().equals("http")
                                ? ": the hosts its requests may reach are --allow-host" : ""));
            }
            Toolbox.checkAllowHosts(allowHosts);
            if (!allowHosts.isEmpty() && !c.backend().equals("http")) {
                // accepted and ignored would read as "this contract may reach that host"; say what it means instead
                throw new Main.UserError("--allow-host names the hosts an [http] contract's requests may reach; "
                        + c.name() + " is a " + c.backend() + " contract" + (c.backend().equals("command")
                                ? ": the hosts its command may reach are " + Toolbox.COMMAND_HOST_OPTION : ""));
            }
            Optional<CommandNetwork> network = Toolbox.commandNetwork(commandHosts, Resolver.system());
            TieredSandbox sandbox = HostMachine.sandbox(image, tier, false);
            Tool tool;
            try {
                tool = switch (c.backend()) {
                    case "command" -> network.isPresent() ? c.bindCommand(sandbox, scope(), network.get())
                            : c.bindCommand(sandbox, scope());
                    case "http" -> c.bindHttp(HttpEgress.of(allowHosts, Resolver.system(), FetchLimits.defaults(),
                            SocketFactory.getDefault()), scope());
                    default -> throw new Main.UserError(c.name() + " is a callback contract: it runs inside the"
                            + " application; use 'toolyard contract test' to check its arguments");
                };
            } catch (ContractException e) {
                throw new Main.UserError(e.getMessage());
            }
            Path parent = store.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            ToolRegistry registry = new ToolRegistry();
            registry.register(tool);
            ToolContext context = ToolContext.builder("cli-" + System.currentTimeMillis(),
                            SandboxPaths.of(workspace.toAbsolutePath()))
                    .timeout(Duration.ofSeconds(timeoutSeconds))
                    .egressCeiling(EgressClass.ALLOWLISTED)
                    .build();
            try (JdbcToolCallStore records = JdbcToolCallStore.sqlite(store)) {
                ToolExecutor executor = ToolExecutor.builder(registry, sandbox).allowlist(Set.of(c.name()))
                        .store(records).handlerMode(HandlerMode.HANDOFF)
                        .approvalGate(CliApprovalGate.forThisProcess(approve)).build();
                ToolResult result = executor.execute(ToolCallRequest.of(c.name(), argumentsJson()), context);
                out().println(Json.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(CallCommand.toJson(result)));
                return result.status() == ToolStatus.OK ? 0 : 1;
            }
        }
    }
}
