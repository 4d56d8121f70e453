/**
 * Answers to the commands' prompts from a script instead of a person: the host tests walk a
 * command's steps this way (and do things between them, as another process would), through the
 * same prompt functions a person sees (prompts.ts). Installed only by the test hooks; in use, every
 * prompt is VS Code's own quick pick or input box.
 */

/** A prompt as the script sees it: its title (with the step), and for a pick each item's label. */
export interface ScriptedPrompt {
  title: string;
  /** The labels of the items, for a pick; undefined for a text box. */
  labels?: string[];
}

/** The label of the item to pick or the text to enter; undefined closes the prompt (cancels). */
export type PromptAnswerer = (prompt: ScriptedPrompt) => Promise<string | undefined>;

let answerer: PromptAnswerer | undefined;

/** Sets (or with undefined, removes) the script that answers the prompts. */
export function answerPromptsWith(script: PromptAnswerer | undefined): void {
  answerer = script;
}

export function promptScript(): PromptAnswerer | undefined {
  return answerer;
}
