/**
 * The core engine, loaded on first use. dist/core.js (built by esbuild.js from src/core, and
 * shipped in the .vsix) sits beside dist/extension.js; keeping it out of the extension bundle
 * means activation does not pay for loading zod and the schemas (most of the bundle's load time):
 * the first view or command that needs the engine does. Type imports of '../core' stay free.
 */
import * as path from 'path';
import type * as CoreModule from '../../library';
import { log } from '../log';

export type Core = typeof CoreModule;

let loaded: Core | undefined;
/** Time the first load took (ms), for the log. */
export let coreLoadMs: number | undefined;

export function core(): Core {
  if (!loaded) {
    const started = performance.now();
    // A computed path: esbuild leaves this require alone, so the core is not bundled here.
    loaded = require(path.join(__dirname, 'core.js')) as Core;
    coreLoadMs = performance.now() - started;
    log.info(`Loaded the engine (dist/core.js) in ${coreLoadMs.toFixed(1)} ms.`);
  }
  return loaded;
}
