# ToolYard policy, exported to Rego from a loose policy (toolyard-policy v1).
# NOT ENGINE-CHECKED: no Rego engine was reachable from ToolYard's build machines; the text is
# pinned by golden files only (docs/policies.md). Input: {"agent", "tool", "args"}, paths normalised.
# OMITTED: rule researcher/http_fetch: argument 'url': a URL constraint, which this Rego export does not express; the whole rule is left out, so Rego denies these calls

package toolyard.policy

import rego.v1

default allow := false

# rule docs-writer/list_dir
allow if {
	input.agent == "docs-writer"
	input.tool == "list_dir"
	every name, _ in input.args { name in {"path"} }
	r0_a0
}

r0_a0 if not "path" in object.keys(input.args)

r0_a0 if {
	v := input.args["path"]
	is_string(v)
	some p in {"."}
	path_under(v, p)
}

# rule docs-writer/read_file
allow if {
	input.agent == "docs-writer"
	input.tool == "read_file"
	every name, _ in input.args { name in {"path"} }
	r1_a0
}

r1_a0 if not "path" in object.keys(input.args)

r1_a0 if {
	v := input.args["path"]
	is_string(v)
	some p in {"."}
	path_under(v, p)
}

# rule docs-writer/write_file
allow if {
	input.agent == "docs-writer"
	input.tool == "write_file"
	every name, _ in input.args { name in {"content", "path"} }
	r2_a0
	r2_a1
}

r2_a0 if not "content" in object.keys(input.args)

r2_a0 if {
	v := input.args["content"]
	is_string(v)
	count(v) >= 0
	count(v) <= 256
}

r2_a1 if not "path" in object.keys(input.args)

r2_a1 if {
	v := input.args["path"]
	is_string(v)
	some p in {"."}
	path_under(v, p)
}

# rule researcher/read_file
allow if {
	input.agent == "researcher"
	input.tool == "read_file"
	every name, _ in input.args { name in {"path"} }
	r3_a0
}

r3_a0 if not "path" in object.keys(input.args)

r3_a0 if {
	v := input.args["path"]
	is_string(v)
	some p in {"."}
	path_under(v, p)
}

# rule researcher/write_file
allow if {
	input.agent == "researcher"
	input.tool == "write_file"
	every name, _ in input.args { name in {"content", "path"} }
	r4_a0
	r4_a1
}

r4_a0 if not "content" in object.keys(input.args)

r4_a0 if {
	v := input.args["content"]
	is_string(v)
	count(v) >= 0
	count(v) <= 256
}

r4_a1 if not "path" in object.keys(input.args)

r4_a1 if {
	v := input.args["path"]
	is_string(v)
	some p in {"."}
	path_under(v, p)
}

# rule reviewer/list_dir
allow if {
	input.agent == "reviewer"
	input.tool == "list_dir"
	every name, _ in input.args { name in {"path"} }
	r5_a0
}

r5_a0 if not "path" in object.keys(input.args)

r5_a0 if {
	v := input.args["path"]
	is_string(v)
	some p in {"."}
	path_under(v, p)
}

# rule reviewer/read_file
allow if {
	input.agent == "reviewer"
	input.tool == "read_file"
	every name, _ in input.args { name in {"path"} }
	r6_a0
}

r6_a0 if not "path" in object.keys(input.args)

r6_a0 if {
	v := input.args["path"]
	is_string(v)
	some p in {"."}
	path_under(v, p)
}

path_under(v, p) if {
	p == "."
	not startswith(v, "/")
}

path_under(v, p) if {
	p == "/"
	startswith(v, "/")
}

path_under(v, p) if v == p

path_under(v, p) if {
	not p in {".", "/"}
	startswith(v, concat("", [p, "/"]))
}
