/**
 * Register Agent and Discover Agents. Argument objects take the fields of `register` (agent_id
 * defaults to the user's agent id) and `discover`.
 */
import { inform } from '../log';
import type { TwiningSession } from '../session';
import { LIVENESS_ICON } from '../views/tree-base';
import { list, score, strings } from '../present/format';
import { Invocation, folderFromArgs, quietly, withDefault } from './command-runner';
import { askText, csv, pickFolder, pickOne } from './prompts';

export async function registerAgent(inv: Invocation, ctx: TwiningSession) {
  const title = 'Register Agent';
  if (inv.mode === 'args') {
    const args = inv.args;
    const folder = await folderFromArgs(ctx, args);
    withDefault(args, 'agent_id', ctx.agentId());
    const record = await folder.write('Register Agent', engine => engine.register(args as never));
    quietly(`${record.agent_id} registered`);
    return record;
  }
  const folder = inv.mode === 'node' ? inv.node.folder : await pickFolder(ctx, { title });
  const preset = inv.mode === 'node' && inv.node.kind === 'agent' ? inv.node.agent : undefined;
  const agentId = await askText(
    { title, step: 1, total: 4 },
    {
      prompt: 'Agent id (your own id is preset; any file-name-safe name works)',
      value: preset?.agent_id ?? ctx.agentId(),
      max: 128,
    },
  );
  const capabilities = csv(
    await askText(
      { title, step: 2, total: 4 },
      {
        prompt: 'Capabilities to add, comma-separated (they are merged with the stored ones)',
        placeHolder: 'e.g. typescript, review, testing',
        value: preset ? strings(preset.capabilities).join(', ') : undefined,
        optional: true,
      },
    ),
  );
  const role = await askText(
    { title, step: 3, total: 4 },
    { prompt: 'Role (optional)', placeHolder: 'e.g. implementer, reviewer, tester', value: preset?.role, optional: true, max: 200 },
  );
  const description = await askText(
    { title, step: 4, total: 4 },
    { prompt: 'What does this agent do? (optional)', value: preset?.description, optional: true, max: 2000 },
  );
  const input: Record<string, unknown> = { agent_id: agentId, capabilities };
  if (role) input.role = role;
  if (description) input.description = description;
  const record = await folder.write('Register Agent', engine => engine.register(input as never));
  inform(`${record.agent_id} registered (${list(strings(record.capabilities), 'no capabilities')}).`);
  return record;
}

export async function discoverAgents(inv: Invocation, ctx: TwiningSession) {
  const title = 'Discover Agents';
  if (inv.mode === 'args') {
    const args = inv.args;
    const folder = await folderFromArgs(ctx, args);
    return folder.run(engine => engine.discover(args as never));
  }
  const folder = inv.mode === 'node' ? inv.node.folder : await pickFolder(ctx, { title });
  const preset = inv.mode === 'node' && inv.node.kind === 'delegation' ? inv.node.delegation.required_capabilities : undefined;
  const required = preset ?? csv(await askText({ title }, { prompt: 'Required capabilities, comma-separated', placeHolder: 'e.g. testing, typescript' }));
  const result = await folder.run(engine => engine.discover({ required_capabilities: required }));
  if (result.agents.length === 0) {
    inform('No agent is registered yet.');
    return result;
  }
  await pickOne(
    { title: `${title}: ${list(required)}` },
    result.agents.map(a => ({
      label: `$(${LIVENESS_ICON[a.liveness].id}) ${a.agent_id}`,
      description: `${score(a.total_score)} · ${a.liveness}${a.role ? ` · ${a.role}` : ''}`,
      detail: a.matched_capabilities.length ? `matches ${list(a.matched_capabilities)}` : 'no matching capabilities',
    })),
    'Best suited first (score = 0.7 × capability overlap + 0.3 × liveness)',
  ).catch(() => undefined);
  return result;
}
