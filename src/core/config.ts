/**
 * `config.yml` (FORMAT.md §4.7): defaults, loading by deep merge onto the defaults, and the
 * default file as js-yaml's default dump writes it. Unlike twining-mcp, the file is re-read
 * whenever it changes, not only at start-up.
 */
import * as yaml from 'js-yaml';

export interface Config {
  version: number;
  project_name: string;
  embedding_model: string;
  archive: { auto_archive_on_commit: boolean; auto_archive_on_context_switch: boolean; max_blackboard_entries_before_archive: number };
  context_assembly: {
    default_max_tokens: number;
    priority_weights: { recency: number; relevance: number; decision_confidence: number; warning_boost: number; graph_reachability: number };
  };
  conflict_resolution: string;
  agents: { liveness: { idle_after_ms: number; gone_after_ms: number } };
  delegations: { timeouts: { high_ms: number; normal_ms: number; low_ms: number } };
  analytics: { metrics: { enabled: boolean }; telemetry: { enabled: boolean; posthog_api_key: string; posthog_host: string } };
  instructions: { auto_inject: boolean };
  tools: { mode: string };
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

export function defaultConfigYaml(projectName: string): string {
  return yaml.dump(defaultConfig(projectName));
}

const isMapping = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Takes only keys that exist in the defaults; nested mappings merge, scalars and arrays replace. */
function merge(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const key of Object.keys(base)) {
    if (!(key in over)) continue;
    const b = base[key];
    const o = over[key];
    if (isMapping(b)) {
      if (isMapping(o)) out[key] = merge(b, o);
    } else if (o !== undefined && o !== null && typeof o === typeof b) {
      out[key] = o;
    }
  }
  return out;
}

/**
 * Parses a config file's text. Missing, empty or non-mapping ⇒ defaults. A value of the wrong type
 * keeps its default (a string where a number belongs cannot become a timeout). Priority weights
 * that do not sum to 1 ± 0.01 fall back to the defaults, as in twining-mcp.
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
  if (!isMapping(loaded)) return defaults;
  const config = merge(defaults as unknown as Record<string, unknown>, loaded) as unknown as Config;
  const weights = Object.values(config.context_assembly.priority_weights);
  const sum = weights.reduce((a, b) => a + b, 0);
  if (Math.abs(sum - 1) > 0.01) config.context_assembly.priority_weights = defaults.context_assembly.priority_weights;
  return config;
}
