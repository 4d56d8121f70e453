/**
 * `config.yml` (docs/format.md §config.yml): defaults, loading by deep merge onto the defaults, and the
 * default file as js-yaml's default dump writes it. Unlike twining-mcp, the file is re-read
 * whenever it changes, not only at start-up.
 */
import * as yaml from 'js-yaml';
import { z } from 'zod';

export interface Config {
  /** Only when config.yml sets it (2.x): whether operations fill in the knowledge graph (default true). */
  graph?: { auto_populate: boolean };
  version: number;
  project_name: string;
  embedding_model: string;
  archive: {
    auto_archive_on_commit: boolean;
    auto_archive_on_context_switch: boolean;
    /** Archive after a post once the blackboard has this many entries; 0 never (twining-mcp reads 0 so). */
    max_blackboard_entries_before_archive: number;
    /** Only when config.yml sets it (2.x): the newest entries an automatic archive keeps whatever their age. */
    retain_recent?: number;
  };
  context_assembly: {
    default_max_tokens: number;
    priority_weights: { recency: number; relevance: number; decision_confidence: number; warning_boost: number; graph_reachability: number };
  };
  conflict_resolution: string;
  agents: { liveness: { idle_after_ms: number; gone_after_ms: number } };
  delegations: { timeouts: { high_ms: number; normal_ms: number; low_ms: number } };
  analytics: { metrics: { enabled: boolean }; telemetry: { enabled: boolean; posthog_api_key: string; posthog_host: string } };
  instructions: { auto_inject: boolean };
  /**
   * `mode` (1.x): `lite` leaves out the status, archive and graph tools. `full_surface`
   * (twining-mcp 2.x), only when config.yml sets it: false offers twining-mcp's default surface
   * only, true every tool (core/tool-surface.ts).
   */
  tools: { mode: string; full_surface?: boolean };
}

export function defaultConfig(projectName: string): Config {
  return {
    version: 1,
    project_name: projectName,
    embedding_model: 'all-MiniLM-L6-v2',
    archive: { auto_archive_on_commit: true, auto_archive_on_context_switch: true, max_blackboard_entries_before_archive: 500 },
    context_assembly: {
      default_max_tokens: 4000,
      priority_weights: { recency: 0.2, relevance: 0.2, decision_confidence: 0.15, warning_boost: 0.1, graph_reachability: 0.35 },
    },
    conflict_resolution: 'human',
    agents: { liveness: { idle_after_ms: 300000, gone_after_ms: 1800000 } },
    delegations: { timeouts: { high_ms: 300000, normal_ms: 1800000, low_ms: 14400000 } },
    analytics: { metrics: { enabled: true }, telemetry: { enabled: false, posthog_api_key: '', posthog_host: 'https://us.i.posthog.com' } },
    instructions: { auto_inject: true },
    tools: { mode: 'full' },
  };
}

/**
 * The config.yml that init writes: the defaults, and `storage.backend` said explicitly (`files`
 * unless asked otherwise). Without the key, twining-mcp 2.x counts a folder with no records yet
 * as fresh and turns it into a SQLite folder that neither side then shares (docs/twining-2.md §Which layout a folder is in).
 */
export function defaultConfigYaml(projectName: string, backend: 'files' | 'sqlite' = 'files'): string {
  return yaml.dump({ ...defaultConfig(projectName), storage: { backend } });
}

const isMapping = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

const count = z.number().int({ message: 'must be a whole number' }).positive({ message: 'must be greater than 0' });
/** Milliseconds: at least 1 s and at most a year (a timeout of 0 would expire every delegation). */
const ms = count.min(1000, { message: 'must be at least 1000 (ms)' }).max(365 * 24 * 3600 * 1000, { message: 'must be at most a year in ms' });
const weight = z.number().min(0, { message: 'must be between 0 and 1' }).max(1, { message: 'must be between 0 and 1' });

/** What each key of config.yml may hold; a value that breaks its rule is replaced by the default, with a warning. */
const CONFIG_RULES = {
  version: count,
  project_name: z.string(),
  embedding_model: z.string(),
  archive: {
    auto_archive_on_commit: z.boolean(),
    auto_archive_on_context_switch: z.boolean(),
    max_blackboard_entries_before_archive: z.number().int({ message: 'must be a whole number' }).min(0, { message: 'must be 0 (never) or more' }),
  },
  context_assembly: {
    default_max_tokens: count,
    priority_weights: { recency: weight, relevance: weight, decision_confidence: weight, warning_boost: weight, graph_reachability: weight },
  },
  conflict_resolution: z.string(),
  agents: { liveness: { idle_after_ms: ms, gone_after_ms: ms } },
  delegations: { timeouts: { high_ms: ms, normal_ms: ms, low_ms: ms } },
  analytics: { metrics: { enabled: z.boolean() }, telemetry: { enabled: z.boolean(), posthog_api_key: z.string(), posthog_host: z.string() } },
  instructions: { auto_inject: z.boolean() },
  tools: { mode: z.enum(['full', 'lite'], { message: 'must be full or lite' }) },
};
type Rules = { [key: string]: z.ZodType | Rules };

const shown = (v: unknown): string => (typeof v === 'number' || typeof v === 'boolean' || v === null ? String(v) : (JSON.stringify(v) ?? 'undefined'));

const ruleOf = (issue: z.core.$ZodIssue | undefined) =>
  !issue ? 'is not allowed' : issue.code === 'invalid_type' ? `must be a ${issue.expected}` : issue.message;

/**
 * Takes only keys that exist in the defaults; nested mappings merge, scalars and arrays replace.
 * A value that breaks its key's rule keeps the default, and `warn` names the key, the value found
 * and the value used.
 */
function merge(base: Record<string, unknown>, over: Record<string, unknown>, rules: Rules, warn: (m: string) => void, prefix = ''): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const key of Object.keys(base)) {
    if (!(key in over)) continue;
    const name = prefix + key;
    const b = base[key];
    const o = over[key];
    const rule = rules[key];
    if (isMapping(b)) {
      if (isMapping(o)) out[key] = merge(b, o, rule as Rules, warn, `${name}.`);
      else if (o !== null) warn(`config.yml: ${name} is ${shown(o)}, not a mapping; using the defaults for ${name}`);
      continue;
    }
    if (o === null || o === undefined) continue; // an empty key: the default, as in twining-mcp
    const checked = (rule as z.ZodType).safeParse(o);
    if (checked.success) out[key] = o;
    else warn(`config.yml: ${name} is ${shown(o)}, but it ${ruleOf(checked.error.issues[0])}; using ${shown(b)}`);
  }
  return out;
}

/**
 * Parses a config file's text. Missing, empty or non-mapping ⇒ defaults. A value of the wrong
 * type or out of range keeps its default, with a warning naming the key (a string or a negative
 * number cannot become a timeout). Priority weights that do not sum to 1 ± 0.01 fall back to the
 * defaults, as in twining-mcp; so do liveness thresholds where idle does not come before gone.
 */
export function parseConfig(text: string | undefined, projectName: string, warn: (m: string) => void = () => undefined): Config {
  const defaults = defaultConfig(projectName);
  if (!text || text.trim() === '') return defaults;
  let loaded: unknown;
  try {
    loaded = yaml.load(text);
  } catch (error) {
    warn(`config.yml is not valid YAML; using the defaults: ${(error as Error).message}`);
    return defaults;
  }
  if (!isMapping(loaded)) {
    warn(`config.yml does not hold a mapping of settings; using the defaults`);
    return defaults;
  }
  const config = merge(defaults as unknown as Record<string, unknown>, loaded, CONFIG_RULES, warn) as unknown as Config;
  // twining-mcp 2.x's graph.auto_populate (docs/twining-2.md §Fields added since 1.9): absent from 1.9's default file, true unless set to false.
  if (isMapping(loaded.graph) && loaded.graph.auto_populate === false) config.graph = { auto_populate: false };
  // twining-mcp 2.x's archive.retain_recent (docs/twining-2.md §Fields added since 1.9), likewise only when set.
  const retain = isMapping(loaded.archive) ? loaded.archive.retain_recent : undefined;
  if (retain !== undefined && retain !== null) {
    if (Number.isInteger(retain) && (retain as number) >= 0) config.archive = { ...config.archive, retain_recent: retain as number };
    else warn(`config.yml: archive.retain_recent is ${shown(retain)}, but it must be a whole number of 0 or more; keeping no entries by age`);
  }
  // twining-mcp 2.x's tools.full_surface (its src/server.ts), likewise only when set.
  const fullSurface = isMapping(loaded.tools) ? loaded.tools.full_surface : undefined;
  if (fullSurface !== undefined && fullSurface !== null) {
    if (typeof fullSurface === 'boolean') config.tools = { ...config.tools, full_surface: fullSurface };
    else warn(`config.yml: tools.full_surface is ${shown(fullSurface)}, but it must be true or false; offering every tool`);
  }
  const weights = Object.values(config.context_assembly.priority_weights);
  const sum = weights.reduce((a, b) => a + b, 0);
  if (Math.abs(sum - 1) > 0.01) config.context_assembly.priority_weights = defaults.context_assembly.priority_weights;
  const { idle_after_ms, gone_after_ms } = config.agents.liveness;
  if (idle_after_ms >= gone_after_ms) {
    warn(
      `config.yml: agents.liveness.idle_after_ms (${idle_after_ms}) must be less than gone_after_ms (${gone_after_ms}); using ${defaults.agents.liveness.idle_after_ms} and ${defaults.agents.liveness.gone_after_ms}`,
    );
    config.agents.liveness = { ...defaults.agents.liveness };
  }
  return config;
}
