# ToolYard policy, exported to Rego from a tight policy (toolyard-policy v1).
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
	some p in {"docs"}
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
	some p in {"docs", "docs/api", "docs/guide", "drafts"}
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
	v in {"# Draft: fetch\u000a\u000aRevised text for fetch, take 5.\u000a", "# Draft: fetch\u000a\u000aRevised text for fetch, take 6.\u000a", "# Draft: intro\u000a\u000aRevised text for intro, take 4.\u000a", "# Draft: records\u000a\u000aRevised text for records, take 1.\u000a", "# Draft: setup\u000a\u000aRevised text for setup, take 2.\u000a"}
}

r2_a1 if not "path" in object.keys(input.args)

r2_a1 if {
	v := input.args["path"]
	is_string(v)
	some p in {"drafts"}
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
	some p in {"notes", "notes/2026-10", "notes/2026-11"}
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
	v in {"Summary 1: fetched 4 pages.\u000a", "Summary 2: fetched 3 pages.\u000a", "Summary 3: fetched 3 pages.\u000a", "Summary 4: fetched 3 pages.\u000a", "Summary 5: fetched 4 pages.\u000a", "Summary 6: fetched 4 pages.\u000a"}
}

r4_a1 if not "path" in object.keys(input.args)

r4_a1 if {
	v := input.args["path"]
	is_string(v)
	some p in {"notes"}
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
	some p in {"src"}
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
	some p in {"README.md", "src/main", "src/test"}
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
