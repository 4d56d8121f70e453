/**
 * *Set Up Agents*: `twining setup` in the editor. One command wires every agent host the folder
 * uses (agents/setup/setup-plan.ts; VS Code's own always): the MCP server, the hooks and the
 * instructions. Run by hand it opens a preview of every change (a diff per file) and writes only
 * what the person accepts; `{remove?, hosts?, folder?}` writes without asking. It also records this installation
 * in the per-user file the committed launcher reads (agents/setup/launcher.ts).
 */
import * as vscode from 'vscode';
import { AGENT_HOSTS, AgentHost, HOST_LABELS, changes, detectHosts, planSetup } from '../../agents/setup/setup-plan';
import { keepEngineCurrent } from '../../agents/setup/launcher';
import { applyHooks, lineDiff } from '../../agents/setup/hooks-config';
import type { TwiningSession } from '../session';
import { log, setContext } from '../log';
import { Cancelled, Invocation, quietly } from './command-runner';
import { folderOf, showPreview } from './agent-setup-commands';

export const AGENTS_WIRED_CONTEXT = 'twining.walkthrough.agentsWired';

export async function setUpAgents(inv: Invocation, ctx: TwiningSession) {
  const title = 'Set Up Agents';
  const folder = await folderOf(inv, ctx, title);
  let remove = false;
  let hosts: AgentHost[] | undefined;
  if (inv.mode === 'args') {
    const extra = Object.keys(inv.args).filter(k => !['remove', 'hosts', 'folder'].includes(k));
    if (extra.length) throw new Error(`${title}: unknown field(s) ${extra.join(', ')} (it takes remove, hosts and folder)`);
    if (inv.args.remove !== undefined && typeof inv.args.remove !== 'boolean') throw new Error(`${title}: remove must be true or false`);
    remove = inv.args.remove === true;
    if (inv.args.hosts !== undefined) {
      const list = inv.args.hosts;
      if (!Array.isArray(list) || list.some(h => !(AGENT_HOSTS as readonly unknown[]).includes(h)))
        throw new Error(`${title}: hosts must be a list of ${AGENT_HOSTS.join(', ')}`);
      hosts = list as AgentHost[];
    }
  }
  const chosen = hosts ?? [...new Set<AgentHost>(['vscode', ...(await detectHosts(folder.root))])];
  const plan = await planSetup(folder.root, { hosts: chosen, remove });
  const changing = changes(plan);
  const names = chosen.map(h => HOST_LABELS[h]).join(', ');
  const written = changing.map(f => f.relative);
  if (changing.length === 0) {
    if (!remove) {
      await keepEngineCurrent(__dirname);
      setContext(AGENTS_WIRED_CONTEXT, true);
    }
    const message = remove
      ? `Twining is not set up in ${folder.name}; nothing was changed.`
      : `${names} in ${folder.name} are already set up; nothing was written.`;
    if (inv.mode === 'args') quietly(message);
    else void vscode.window.showInformationMessage(message);
    return { written, hosts: chosen, removed: remove, folder: folder.root };
  }
  if (inv.mode !== 'args') {
    // One preview of every change (a diff per file, as `twining setup` prints it): one editor opens
    // at once where a diff editor per file (up to ten) kept the question waiting.
    const preview = changing
      .map(f => {
        const lines = lineDiff(f.before, f.after)
          .split('\n')
          .map(l => (l.startsWith('+ ') ? '+' : l.startsWith('- ') ? '-' : ' ') + l.slice(2));
        return [
          `--- ${f.before === undefined ? '/dev/null' : `a/${f.relative}`}`,
          `+++ ${f.after === undefined ? '/dev/null' : `b/${f.relative}`}`,
          ...lines,
        ].join('\n');
      })
      .join('\n');
    // A read-only document, closed once the question is answered: nothing is left to save or discard.
    const closePreview = await showPreview(folder, 'set-up-agents.diff', preview + '\n');
    const choice = await vscode.window.showInformationMessage(
      `${remove ? 'Take Twining out of' : 'Set up'} ${names} in ${folder.name}? ${changing.length} file(s) change.`,
      {
        modal: true,
        detail:
          'The preview shows each file’s change; other settings, hooks and servers are kept. The files name no path of this machine (the commands run .agents/twining/, to commit with them), so they work for your whole team.',
      },
      remove ? 'Remove' : 'Set Up',
    );
    await closePreview();
    if (choice === undefined) throw new Cancelled();
  }
  // These files are outside .twining/: no engine writes them, so the rule is asked here.
  const refusal = ctx.folders.writeRefusal(title);
  if (refusal) throw refusal;
  if (!remove) await keepEngineCurrent(__dirname);
  await applyHooks(plan.files, folder.root);
  setContext(AGENTS_WIRED_CONTEXT, !remove);
  const message = `${remove ? 'Took Twining out of' : 'Set up'} ${names} in ${folder.name}: ${written.join(', ')}.`;
  log.info(message);
  if (inv.mode === 'args') quietly(message);
  else void vscode.window.showInformationMessage(message);
  return { written, hosts: chosen, removed: remove, folder: folder.root };
}
