/**
 * The server's `instructions`: sent to the client when it connects, so that a model knows when
 * to use which tool without a prompt written for it.
 */
export const INSTRUCTIONS = `Twining keeps the shared record of the agents and people working on this repository in its .twining/ folder: who is working (agents), what help is needed (delegations), what work was handed over (handoffs, each with a snapshot of the decisions, warnings and findings in its scope), the decisions behind the code and the blackboard of warnings and findings. Other agents read and write it at the same time; nothing you write is lost.

When to use which tool:
- At the start of a session, call twining_register with your own agent_id and your capabilities. Then call twining_handoffs with acknowledged=false and target_agent set to your agent_id: work handed to you is waiting there.
- Before you start a task, twining_assemble (task, scope, your agent_id) gives the briefing in one call: handoffs waiting for you, active warnings, the decisions that constrain the scope with their rationale, open needs and questions, and what changed since your last briefing.
- When you finish a piece of work, twining_record records it in one call: a summary, the decisions you made (each with rationale and affected files), findings and warnings for the next session, the ids it resolved, and optionally a handoff.
- Where Twining's agent hooks are set up (twining hooks-setup, or the command Twining: Set Up Agent Hooks), the briefing arrives by itself when a session starts, an edit shows the file's decisions and warnings, and a session that changed files is asked for twining_record before it ends.
- When you take over a handoff, call twining_acknowledge with its id and your agent_id first, then twining_verify with its handoff_id: it says whether the context snapshot is intact and which decisions or warnings changed since it was written. (twining_verify with a scope instead runs twining-mcp's checks of that scope: test coverage, unanswered warnings, decisions made without context, drift.)
- To catch up, call twining_what_changed with the time you last looked; twining_trace shows a decision's dependencies before you change or override it, and twining_link_commit ties a commit to the decision it implements.
- Before you edit a file or folder, call twining_decisions with scope set to it, and twining_read with entry_types ["warning"] and the same scope: respect the active decisions, and do not repeat what a warning describes.
- When you start a task, call twining_claim with your agent_id, the files, folders or globs you will edit (or the delegation_id you take) and a reason. If another live agent holds one, work on something else or ask them with twining_post (a need); call twining_release when you are done.
- When you make a choice where alternatives existed, record it with twining_decide (context, rationale, the rejected alternatives). Post what you find with twining_post (entry_type "finding"), and what others must watch out for as "warning". Never post entry_type "decision".
- When you have dealt with a warning, need or question, close it with twining_resolve (its ids, a note on how, your agent_id): it stays on the record with who resolved it and why. twining_dismiss removes an entry, for noise only. twining_triage lists what is still open, oldest first.
- When you need help you cannot give yourself, call twining_delegate with the capabilities it needs; twining_discover ranks the agents that could take it.
- When you stop before the work is done, or it is done and someone else continues, call twining_handoff with your agent_id as source_agent, the scope you worked in, a summary and each result with its status; the snapshot of the decisions, warnings and findings in scope is attached automatically. Use continues to link it to the handoff you picked up.
- Scopes are paths: a file ("src/auth/jwt.ts"), a folder ending in "/" ("src/auth/"), or "project". Use the narrowest that fits.
- Errors come back as {"error":true,"message":…,"code":…}; the message names the field or file at fault, and nothing was written.`;
