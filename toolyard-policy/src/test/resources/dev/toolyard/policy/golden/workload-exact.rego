# ToolYard policy, exported to Rego from a exact policy (toolyard-policy v1).
# NOT ENGINE-CHECKED: no Rego engine was reachable from ToolYard's build machines; the text is
# pinned by golden files only (docs/policies.md). Input: {"agent", "tool", "args"}, paths normalised.

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
	some p in {"docs/api", "docs/guide"}
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
	some p in {"docs/api/fetch.md", "docs/api/files.md", "docs/api/records.md", "docs/faq.md", "docs/guide/intro.md", "drafts/intro-4.md", "drafts/records-1.md", "drafts/setup-2.md"}
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
	some p in {"drafts/fetch-5.md", "drafts/fetch-6.md", "drafts/intro-4.md", "drafts/records-1.md", "drafts/setup-2.md"}
	path_under(v, p)
}

# rule researcher/http_fetch
allow if {
	input.agent == "researcher"
	input.tool == "http_fetch"
	every name, _ in input.args { name in {"url"} }
	r3_a0
}

r3_a0 if not "url" in object.keys(input.args)

r3_a0 if {
	v := input.args["url"]
	v in {"http://api.internal:50775/v1/items/999", "http://api.internal:50775/v1/status", "http://docs.internal:50775/guides/egress", "http://docs.internal:50775/guides/intro", "http://docs.internal:50775/guides/policies", "http://docs.internal:50775/guides/records"}
}

# rule researcher/read_file
allow if {
	input.agent == "researcher"
	input.tool == "read_file"
	every name, _ in input.args { name in {"path"} }
	r4_a0
}

r4_a0 if not "path" in object.keys(input.args)

r4_a0 if {
	v := input.args["path"]
	is_string(v)
	some p in {"notes/2026-10/planning.md", "notes/2026-11/retro.md", "notes/2026-11/standup.md", "notes/ideas.md"}
	path_under(v, p)
}

# rule researcher/write_file
allow if {
	input.agent == "researcher"
	input.tool == "write_file"
	every name, _ in input.args { name in {"content", "path"} }
	r5_a0
	r5_a1
}

r5_a0 if not "content" in object.keys(input.args)

r5_a0 if {
	v := input.args["content"]
	v in {"Summary 1: fetched 4 pages.\u000a", "Summary 2: fetched 3 pages.\u000a", "Summary 3: fetched 3 pages.\u000a", "Summary 4: fetched 3 pages.\u000a", "Summary 5: fetched 4 pages.\u000a", "Summary 6: fetched 4 pages.\u000a"}
}

r5_a1 if not "path" in object.keys(input.args)

r5_a1 if {
	v := input.args["path"]
	is_string(v)
	some p in {"notes/summary-1.md", "notes/summary-2.md", "notes/summary-3.md", "notes/summary-4.md", "notes/summary-5.md", "notes/summary-6.md"}
	path_under(v, p)
}

# rule reviewer/list_dir
allow if {
	input.agent == "reviewer"
	input.tool == "list_dir"
	every name, _ in input.args { name in {"path"} }
	r6_a0
}

r6_a0 if not "path" in object.keys(input.args)

r6_a0 if {
	v := input.args["path"]
	is_string(v)
	some p in {"src", "src/main", "src/test"}
	path_under(v, p)
}

# rule reviewer/read_file
allow if {
	input.agent == "reviewer"
	input.tool == "read_file"
	every name, _ in input.args { name in {"path"} }
	r7_a0
}

r7_a0 if not "path" in object.keys(input.args)

r7_a0 if {
	v := input.args["path"]
	is_string(v)
	some p in {"README.md", "src/main/App.java", "src/main/Missing.java", "src/main/Store.java", "src/main/Util.java", "src/test/AppTest.java", "src/test/UtilTest.java"}
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
