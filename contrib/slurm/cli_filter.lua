--[[
cli_filter.lua: a Slurm cli_filter (CliFilterPlugins=cli_filter/lua) that asks for what a
streamcard card needs, so that `sbatch --stream-card=card.yaml job.sh` works without the
user repeating the card's CPUs as `-c 2` or `--exclusive`.

For sbatch, salloc and srun given --stream-card=CARD, slurm_cli_pre_submit runs
`streamcard resources CARD` (as the submitting user, in the submission's directory) and
  - asks for the card's tasks when the user gave neither -n, -N nor --ntasks-per-node: an
    MPI card's ranks as tasks, one each (--ntasks=<ranks>, and --ntasks-per-node for a
    card over several nodes), which `streamcard run` then starts with srun inside the job;
    any other card is one task (--ntasks=1),
  - sets --cpus-per-task so that each node's tasks hold the card's CPUs (the cpu_list's
    CPU count spread over the tasks per node the user or the card asked for; nothing when
    one CPU per task is enough),
  - sets --exclusive when the card changes prefetch or the governor (`exclusive=yes`):
    those settings affect the whole node, so no other job may share it.
srun inside such a job sees the card too (the job's environment carries SPANK options),
so its steps get the same treatment. An explicit choice of the user (-c, -n,
--ntasks-per-node, --exclusive, --oversubscribe, on the command line or in #SBATCH lines)
is never changed; when it gives less than the card needs, one line on stderr says so (the
plugin then refuses the run at its start, naming the fix). What the filter adds, it says
in one line on stderr. The nodes are left alone: the plugin checks the card's `nodes`.

The filter fails a submission for one reason only: the card's cpu_list names a CPU that
no node of the partition has (`sinfo`), so the job could never start and would pend
forever; one line on stderr says so. Otherwise it never fails one: without --stream-card
it does nothing; a missing streamcard command, a partition sinfo cannot describe or any
other trouble is one line on stderr and the submission goes on unchanged; a bad card is
left to the plugin, which refuses it with the card's messages (the filter stays quiet
then, so they are not printed twice).

Install: copy this file as cli_filter.lua into the directory of slurm.conf, add
CliFilterPlugins=cli_filter/lua to slurm.conf, and set STREAMCARD_BIN_DEFAULT below to the
installed streamcard command (or define it in a line before this file's content, as
contrib/local-cluster/up does). Slurm cannot ask for particular CPU numbers: -c 2 gets two
free CPUs, which are the card's cpu_list 0-1 on an idle node but may not be on a shared
one (the plugin then refuses the run, naming --exclusive).

Slurm 22.05 (cli_filter/lua, Lua 5.1), verified on Debian 12's 22.05.8:
  - the script is read from the directory of slurm.conf, as cli_filter.lua;
  - SPANK options are in options.spank[<plugin name>][<option name>], here
    options.spank.streamcard["stream-card"] (the card path as the user typed it); they
    are known in slurm_cli_pre_submit, not yet in slurm_cli_setup_defaults;
    options["spank:stream-card"] is nil (that spelling exists only in the JSON below);
  - pre_submit runs before the plugin's init_post_opt, so before the card is checked;
  - reading an option gives its value even when unset (ntasks reads "1"): which options
    the user set comes from slurm.json_cli_options(options), which lists set ones only;
  - assigning options[name] = value works like the command-line option;
  - a Lua error in a callback fails the submission: everything here runs under pcall.
--]]

-- The streamcard command: $STREAMCARD_BIN if set, else this. An installation may
-- define STREAMCARD_BIN_DEFAULT before this line (contrib/local-cluster/up does).
STREAMCARD_BIN_DEFAULT = STREAMCARD_BIN_DEFAULT or "/usr/local/bin/streamcard"

local PREFIX = "streamcard cli_filter: "

local function say(msg)
	io.stderr:write(PREFIX, msg, "\n")
end

-- A word for /bin/sh: single quotes, an embedded ' as '\''.
local function shell_quote(s)
	return "'" .. (string.gsub(s, "'", "'\\''")) .. "'"
end

-- The --stream-card value, or nil. The plugin registers it as "stream-card" under its
-- SPANK name "streamcard"; any plugin's "stream-card" is accepted in case a site renamed it.
local function card_option(options)
	local spank = options.spank
	if type(spank) ~= "table" then
		return nil
	end
	local ours = spank.streamcard
	if type(ours) == "table" and ours["stream-card"] ~= nil then
		return ours["stream-card"]
	end
	for _, opts in pairs(spank) do
		if type(opts) == "table" and opts["stream-card"] ~= nil then
			return opts["stream-card"]
		end
	end
	return nil
end

-- The names of the options the user set (command line, #SBATCH lines, input environment
-- variables), from Slurm's JSON of the set options; nil when Slurm cannot give it.
-- Keys are matched only after '{' or ',': inside a JSON string every '"' is escaped, so
-- '{"' or ',"' followed by name and '":' is always a key (argv items are never followed
-- by ':').
local function options_set(options)
	local ok, json = pcall(slurm.json_cli_options, options)
	if not ok or type(json) ~= "string" then
		return nil
	end
	local set = {}
	for key in string.gmatch(json, '[{,]"([%w_-]+)":') do
		set[key] = true
	end
	return set
end

-- Runs `streamcard resources CARD`; returns a table of its key=value lines, or nil and
-- why: "missing" (no such command), "bad card" (exit 2: the plugin will say why), or
-- another one-line reason. The card's messages on stderr are dropped: the plugin prints
-- them when it checks the card a moment later.
local function card_resources(bin, card)
	-- A card named like an option would be taken for one.
	if string.sub(card, 1, 1) == "-" then
		card = "./" .. card
	end
	local cmd = "if command -v " .. shell_quote(bin) .. " >/dev/null 2>&1; then "
		.. shell_quote(bin) .. " resources " .. shell_quote(card)
		.. ' 2>/dev/null; echo "exit=$?"; else echo exit=missing; fi'
	local f = io.popen(cmd, "r")
	if not f then
		return nil, "cannot run /bin/sh"
	end
	local out = f:read("*a") or ""
	f:close() -- Lua 5.1 gives no exit status here: the command echoes it.
	local res = {}
	for key, value in string.gmatch(out, "([%w_]+)=([^\n]*)") do
		res[key] = value
	end
	if res.exit == "missing" then
		return nil, "missing"
	elseif res.exit == "2" then
		return nil, "bad card"
	elseif res.exit ~= "0" then
		return nil, "`" .. bin .. " resources` failed (exit " .. tostring(res.exit) .. ")"
	end
	return res
end

-- The number at the start of an option's value ("2", "1-0" for nodes), or nil.
local function leading_number(value)
	return tonumber(string.match(tostring(value or ""), "^%s*(%d+)"))
end

local function plural(n, word)
	return n .. " " .. word .. (n == 1 and "" or "s")
end

-- The highest CPU number of a cpulist ("0-3,8" gives 8), or nil.
local function highest_cpu(list)
	local top
	for n in string.gmatch(tostring(list or ""), "%d+") do
		n = tonumber(n)
		if top == nil or n > top then
			top = n
		end
	end
	return top
end

-- The most CPUs a node of the job's partitions has (the ones the user named, else the
-- default one), and their names; nil when sinfo cannot say.
local function partition_cpus(options, set)
	local wanted = {}
	local named = tostring(options["partition"] or "")
	if (set == nil or set["partition"]) and named ~= "" and named ~= "(null)" then
		for p in string.gmatch(named, "[^,]+") do
			wanted[p] = true
		end
	else
		wanted = nil -- the default partition, marked '*' by sinfo
	end
	local f = io.popen("sinfo -h -N -o '%P %c' 2>/dev/null", "r")
	if not f then
		return nil
	end
	local most, names = nil, {}
	for line in f:lines() do
		local part, cpus = string.match(line, "^(%S+)%s+(%d+)")
		if part then
			local default = string.sub(part, -1) == "*"
			local name = default and string.sub(part, 1, -2) or part
			if (wanted and wanted[name]) or (not wanted and default) then
				cpus = tonumber(cpus)
				if most == nil or cpus > most then
					most = cpus
				end
				names[name] = true
			end
		end
	end
	f:close()
	local list = {}
	for name in pairs(names) do
		list[#list + 1] = name
	end
	table.sort(list)
	return most, table.concat(list, ",")
end

-- The filter proper: may raise errors (the caller catches them). Returns "refuse" when the
-- submission must fail (its line said), else nothing.
local function apply(options)
	local card = card_option(options)
	if card == nil then
		return
	end
	local bin = os.getenv("STREAMCARD_BIN")
	if bin == nil or bin == "" then
		bin = STREAMCARD_BIN_DEFAULT
	end
	local res, why = card_resources(bin, card)
	if res == nil then
		if why == "missing" then
			say(bin .. " not found: not adding the card's resources (set STREAMCARD_BIN); the plugin still checks the card")
		elseif why ~= "bad card" then
			say(why .. ": not adding the card's resources; the plugin still checks the card")
		end
		return
	end
	local cpus = tonumber(res.cpus)
	if cpus == nil or cpus < 1 or cpus ~= math.floor(cpus) then
		say("`" .. bin .. " resources` printed no usable cpus= line: not adding the card's resources")
		return
	end
	local need_whole_node = res.exclusive == "yes"
	local set = options_set(options)

	-- A CPU no node of the partition has: the job would pend forever.
	local top = highest_cpu(res.cpu_list)
	local most, parts = partition_cpus(options, set)
	if top and most and top >= most then
		say(card .. ": cpu_list " .. tostring(res.cpu_list) .. " names CPU " .. top
			.. ", but no node of partition " .. parts .. " has more than " .. plural(most, "CPU")
			.. ": the job could never start (valid: a cpu_list within 0-" .. (most - 1) .. ")")
		return "refuse"
	end

	-- What the user chose. Without Slurm's list of set options, fall back to the values:
	-- unset reads as cpus-per-task "0", exclusive "unset"; ntasks (reads "1") then counts
	-- as unset unless it is another number.
	local cpt = leading_number(options["cpus-per-task"]) or 0
	local ntasks = leading_number(options["ntasks"]) or 1
	local per_node = leading_number(options["ntasks-per-node"]) or 0
	local min_nodes = leading_number(options["nodes"]) or 1
	local shared = tostring(options["exclusive"] or "unset")
	local cpt_given, ntasks_given, per_node_given, nodes_given
	if set then
		cpt_given = set["cpus-per-task"] and cpt > 0
		ntasks_given = set["ntasks"] or false
		per_node_given = set["ntasks-per-node"] and per_node > 0
		nodes_given = set["nodes"] or false
	else
		cpt_given = cpt > 0
		ntasks_given = ntasks ~= 1
		per_node_given = per_node > 0
		nodes_given = min_nodes > 1
	end
	local shared_given = shared ~= "unset" -- --exclusive[=user|mcs] or --oversubscribe

	local layout_given = ntasks_given or per_node_given or nodes_given

	-- The card's tasks (`streamcard resources`: an MPI card's ranks, one task each, each
	-- node's ranks on its cpu_list); nil from a streamcard that does not print them.
	local ranks = tonumber(res.tasks)
	local rank_nodes = tonumber(res.task_nodes)
	local ranks_per_node = tonumber(res.tasks_per_node)
	local by_ranks = ranks ~= nil and rank_nodes ~= nil and ranks_per_node ~= nil
		and not (ranks == 1 and rank_nodes == 1)

	-- Tasks on each node the user asked for (at least), else the card's; hence CPUs per node.
	local tasks_per_node = 1
	if per_node_given then
		tasks_per_node = per_node
	elseif ntasks_given then
		tasks_per_node = math.max(1, math.floor(ntasks / math.max(min_nodes, 1)))
	elseif by_ranks then
		tasks_per_node = math.max(1, ranks_per_node)
	end
	local cpus_per_node = tasks_per_node * (cpt_given and cpt or 1)

	local added = {}
	local card_desc = card .. " (cpu_list " .. tostring(res.cpu_list)
	if by_ranks then
		card_desc = card_desc .. (ranks > 0 and ", " .. plural(ranks, "rank") or ", one rank per node")
	end
	card_desc = card_desc .. ")"
	local gets_whole_node = shared == "exclusive" or (need_whole_node and not shared_given)

	-- options[name] = value, checked; true when it took.
	local function set(name, value)
		options[name] = tostring(value)
		if leading_number(options[name]) ~= value then
			say("could not set --" .. name .. "=" .. value .. " for " .. card_desc)
			return false
		end
		added[#added + 1] = "--" .. name .. "=" .. value
		return true
	end

	-- An MPI card's ranks as tasks: srun starts them inside the job, one task each.
	if by_ranks and not layout_given then
		if ranks > 0 then
			set("ntasks", ranks)
		end
		if rank_nodes ~= 1 then
			set("ntasks-per-node", ranks_per_node)
		end
		if rank_nodes == 0 then
			say(card_desc .. " pairs every node of the job, one rank each: give sbatch -N with the number of nodes")
		end
	end

	if not cpt_given then
		local want = math.ceil(cpus / tasks_per_node)
		if want > 1 and set("cpus-per-task", want) and not layout_given and not by_ranks then
			set("ntasks", 1)
		end
	elseif cpus_per_node < cpus and not gets_whole_node then
		say(card_desc .. " needs " .. plural(cpus, "CPU") .. "; keeping your -c " .. cpt
			.. " (" .. plural(cpus_per_node, "CPU") .. " per node): the plugin refuses the run"
			.. " unless it gets them (use -c " .. math.ceil(cpus / tasks_per_node) .. " or --exclusive)")
	end

	if need_whole_node then
		if not shared_given then
			options["exclusive"] = "exclusive"
			if tostring(options["exclusive"]) ~= "exclusive" then
				say("could not set --exclusive for " .. card_desc)
			else
				added[#added + 1] = "--exclusive"
			end
		elseif shared ~= "exclusive" then
			say(card .. " changes prefetch or the governor, which affect the whole node; keeping your "
				.. (shared == "oversubscribe" and "--oversubscribe" or "--exclusive=" .. shared)
				.. ": other jobs may share the node (the plugin may refuse the change)")
		end
	end

	if #added > 0 then
		say(card_desc .. (need_whole_node and ", changes node-wide settings" or "")
			.. ": added " .. table.concat(added, " "))
	end
end

function slurm_cli_setup_defaults(options, early)
	return slurm.SUCCESS
end

function slurm_cli_pre_submit(options, offset)
	local ok, result = pcall(apply, options)
	if not ok then
		say("internal error (the submission goes on): " .. tostring(result))
	elseif result == "refuse" then
		return slurm.ERROR
	end
	return slurm.SUCCESS
end

function slurm_cli_post_submit(offset, jobid, stepid)
	return slurm.SUCCESS
end
