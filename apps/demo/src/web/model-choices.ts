import type { CodeLanguage, Model } from "@atrium/spec";
import type { DemoLimits } from "../limits.js";
import type { DemoModel } from "../models/resolve-demo-model.js";
import { SCRIPTED_DOCS_LANGUAGES, scriptedDocsModel } from "../models/scripted-docs-model.js";

/** One entry of the web UI's model switch. */
export interface ModelChoice {
  id: string;
  label: string;
  scripted: boolean;
  model: Model;
  /**
   * The languages this model writes code in, when it is not any: the page offers it only
   * executors of those languages (the scripted docs model: JavaScript and Python).
   */
  languages?: readonly CodeLanguage[];
}

/**
 * The models the web UI offers: the one the demo resolved (`ATRIUM_MODEL`, else scripted) first,
 * as the default, and the scripted docs model beside a real one, since it needs no key.
 */
export function modelChoices(chosen: DemoModel, limits: Partial<DemoLimits> = {}): ModelChoice[] {
  const scripted = (model: Model): ModelChoice => ({
    id: "scripted",
    label: "Scripted docs model",
    scripted: true,
    model,
    languages: SCRIPTED_DOCS_LANGUAGES,
  });
  if (chosen.scripted) return [scripted(chosen.model)];
  return [
    { id: chosen.model.id, label: chosen.model.id, scripted: false, model: chosen.model },
    scripted(scriptedDocsModel(limits)),
  ];
}
