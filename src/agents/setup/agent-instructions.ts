/**
 * Twining's part of a workspace's agent instructions, in VS Code's conventions: a marked section
 * for `AGENTS.md` or `.github/copilot-instructions.md`, a `.github/instructions/*.instructions.md`
 * file, and a prompt file for handing off (`.github/prompts/twining-handoff.prompt.md`). The text
 * is the MCP server's own `instructions` (one text for every agent). Pure: no vscode, no I/O.
 */
import { INSTRUCTIONS } from '../../mcp/instructions';

export const BEGIN_MARK = '<!-- BEGIN twining (written by Twining: Add Agent Instructions; this section is replaced when it runs again) -->';
export const END_MARK = '<!-- END twining -->';
/** What identifies the markers (the begin marker's text after its first words may be edited). */
const BEGIN_RE = /<!--\s*BEGIN twining\b[^>]*-->/;
const END_RE = /<!--\s*END twining\s*-->/;

export const INSTRUCTION_TARGETS = ['agents', 'copilot', 'instructions-file'] as const;
export type InstructionTarget = (typeof INSTRUCTION_TARGETS)[number];

export const TARGETS: Record<InstructionTarget, { label: string; path: string; detail: string }> = {
  agents: { label: 'AGENTS.md', path: 'AGENTS.md', detail: 'Read by Copilot, Codex, Cursor, Claude Code (via a reference) and most agents' },
  copilot: { label: 'Copilot instructions', path: '.github/copilot-instructions.md', detail: 'Read by GitHub Copilot in VS Code and on github.com' },
  'instructions-file': {
    label: 'Instructions file',
    path: '.github/instructions/twining.instructions.md',
    detail: "VS Code's *.instructions.md, applied to every file (applyTo: '**')",
  },
};

/**
 * The statuses of a handoff's results, as the core's schema has them (a unit test holds them
 * equal). Written out here so that the extension does not load the core's schemas to write a
 * file.
 */
export const HANDOFF_RESULT_STATUSES = ['completed', 'partial', 'blocked', 'failed'] as const;

export const PROMPT_FILE = '.github/prompts/twining-handoff.prompt.md';

/** The marked section: a heading and the MCP server's instructions. */
export function instructionsSection(): string {
  return [BEGIN_MARK, '## Twining: coordinating with other agents', '', INSTRUCTIONS, END_MARK].join('\n');
}

/** The whole `.instructions.md` file when it does not exist yet. */
function instructionsFile(section: string): string {
  return [
    '---',
    "description: 'Twining: how to coordinate with the other agents and people on this repository through .twining/'",
    "applyTo: '**'",
    '---',
    '',
    section,
    '',
  ].join('\n');
}

/** A file whose markers are not one begin followed by one end: it is left alone, and the error says why. */
export class MarkerError extends Error {}

/**
 * The file's text with Twining's section in it: the marked section replaced where it exists (so
 * running again never duplicates it), else appended after a blank line; the file's own line
 * endings are kept. `undefined` (no file yet) gives the file as it should start.
 */
export function withSection(target: InstructionTarget, existing: string | undefined, file = TARGETS[target].path): string {
  const section = instructionsSection();
  if (existing === undefined || existing.trim() === '') return target === 'instructions-file' ? instructionsFile(section) : section + '\n';
  const eol = existing.includes('\r\n') ? '\r\n' : '\n';
  const ours = section.split('\n').join(eol);
  const begins = [...existing.matchAll(new RegExp(BEGIN_RE, 'g'))];
  const ends = [...existing.matchAll(new RegExp(END_RE, 'g'))];
  if (begins.length === 0 && ends.length === 0) {
    const gap = existing.endsWith(eol + eol) ? '' : existing.endsWith(eol) ? eol : eol + eol;
    return existing + gap + ours + eol;
  }
  if (begins.length !== 1 || ends.length !== 1 || ends[0].index < begins[0].index) {
    throw new MarkerError(
      `${file}: its Twining section markers are broken (${begins.length} begin and ${ends.length} end marker(s)${
        begins.length === 1 && ends.length === 1 ? ', the end before the begin' : ''
      }); nothing was written. Fix or remove the markers ("<!-- BEGIN twining … -->" … "<!-- END twining -->") and run the command again.`,
    );
  }
  const start = begins[0].index;
  const end = ends[0].index + ends[0][0].length;
  return existing.slice(0, start) + ours + existing.slice(end);
}

/**
 * The instructions the extension contributes to VS Code's chat (`contributes.chatInstructions`,
 * media/chat/), for workspaces with a `.twining/` folder: the same text, without markers (nobody
 * edits the installed copy).
 */
export function contributedInstructions(): string {
  return instructionsFile(['## Twining: coordinating with other agents', '', INSTRUCTIONS].join('\n'));
}

/** The prompt file for handing off (`/twining-handoff` in chat), wholly Twining's. */
export function handoffPrompt(): string {
  return [
    '---',
    'name: twining-handoff',
    "description: 'Hand the work of this session over through Twining, with its results and the decisions, warnings and findings in scope'",
    "argument-hint: 'what to hand over, and to which agent (optional)'",
    'agent: agent',
    '---',
    'Hand the work of this session over through Twining, so that whoever continues (another agent or a person) gets the results and the context without asking. What to hand over and to whom may follow this prompt; take the rest from the conversation.',
    '',
    '1. If you have not registered in this session, call `twining_register` with your own `agent_id` and your capabilities.',
    '2. Record each choice you made where alternatives existed with `twining_decide` (context, rationale, rejected alternatives), and post what the next one must watch out for with `twining_post` (`entry_type` "warning"), and what you found out as "finding".',
    '3. Call `twining_handoff` with your `agent_id` as `source_agent`; `target_agent` when a recipient was named (leave it out for any agent); the narrowest `scope` that covers the work (a file, a folder ending in "/", or leave it out for the whole project); a `summary` that says where the work stands; and one entry in `results` per piece of work, with its `description` and a `status` of ' +
      HANDOFF_RESULT_STATUSES.map(s => `"${s}"`).join(', ') +
      '. If this session continued a handoff you acknowledged, set `continues` to its id. The snapshot of the decisions, warnings and findings in scope is attached automatically.',
    '4. Reply with the handoff id, who it is for, and how many decisions, warnings and findings its snapshot holds.',
    '',
    INSTRUCTIONS.split('\n\n')[0],
    '',
  ].join('\n');
}
