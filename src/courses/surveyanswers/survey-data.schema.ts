import { z } from 'zod';
import { ApiError } from '../../platform/errors/api-error';
import { p } from '../../platform/http/param-types';
import { MAX_INPUT_DEPTH, nestingDepth } from '../../platform/http/input-guard';

/** Levels of nested items (children of children ...); deeper is a 420, before zod recurses. */
export const SURVEY_MAX_ITEM_DEPTH = 10;

function itemDepth(items: unknown, limit: number): number {
  if (!Array.isArray(items) || limit <= 0) return 0;
  let deepest = 0;
  for (const it of items) deepest = Math.max(deepest, itemDepth((it as { children?: unknown } | null)?.children, limit - 1));
  return deepest + 1;
}

const scalar = z.union([z.string().max(10000), z.number(), z.boolean(), z.null()]);

export interface SurveyItem {
  competence_id: number;
  value?: unknown;
  file_data?: string;
  file_name?: string;
  file_title?: string;
  file_id?: number;
  children?: SurveyItem[];
}

const item: z.ZodType<SurveyItem> = z
  .lazy(() =>
    z.object({
      competence_id: p.id(),
      value: z.union([scalar, z.array(scalar).max(1000)]).optional(),
      file_data: z
        .string()
        .regex(/^[A-Za-z0-9+/\s]*={0,2}\s*$/, 'must be Base64')
        .optional(),
      file_name: p.string(255).min(1).optional(),
      file_title: p.string(500).optional(),
      file_id: p.id().optional(),
      children: z.array(item).max(1000).optional(),
    }),
  )
  .meta({ id: 'SurveyItem' });

/** `data` as JSON text (form and query) or as an object (JSON body). */
export const surveyData = z.preprocess(
  (v, ctx) => {
    let data = v;
    if (typeof v === 'string') {
      try {
        data = JSON.parse(v);
      } catch {
        ctx.addIssue({ code: 'custom', message: 'must be JSON: {"items": [...]}' });
        return z.NEVER;
      }
    }
    // A JSON text escapes the body's nesting check; zod's recursion must not meet it unbounded.
    if (
      nestingDepth(data, MAX_INPUT_DEPTH) > MAX_INPUT_DEPTH ||
      itemDepth((data as { items?: unknown } | null)?.items, SURVEY_MAX_ITEM_DEPTH + 1) > SURVEY_MAX_ITEM_DEPTH
    ) {
      ctx.addIssue({ code: 'custom', message: `must not nest items deeper than ${SURVEY_MAX_ITEM_DEPTH} levels` });
      return z.NEVER;
    }
    return data;
  },
  z.object({ items: z.array(item).min(1, 'must hold at least one item').max(1000) }),
);
export type SurveyData = z.infer<typeof surveyData>;

/** A survey's question tree (the catalogue's competences, read by the caller). */
export interface SurveyQuestions {
  survey: { id: number; title: string };
  /** question id -> parent competence id */
  parentOf: Map<number, number>;
}

/**
 * Items must follow the survey's question tree: root items are questions directly
 * under the survey, children are sub-questions of their parent item's question.
 */
export function validateItems(tree: SurveyQuestions, items: SurveyItem[], onPost: boolean, path = 'data[items]', parent = tree.survey.id): void {
  items.forEach((it, i) => {
    const at = `${path}[${i}]`;
    const actualParent = tree.parentOf.get(it.competence_id);
    if (actualParent === undefined) {
      throw ApiError.malformed(`${at}[competence_id]`, `competence ${it.competence_id} is not a question of survey "${tree.survey.title}"`);
    }
    if (actualParent !== parent) {
      const where = parent === tree.survey.id ? 'at the top level of the survey' : `under question ${parent}`;
      throw ApiError.malformed(
        `${at}[competence_id]`,
        `question ${it.competence_id} does not belong ${where}; nest items as the survey's questions are nested`,
      );
    }
    if (it.file_data !== undefined) {
      if (!onPost) throw ApiError.malformed(`${at}[file_data]`, 'files can only be sent with POST /api/surveyanswer; keep an uploaded file with its file_id');
      if (!it.file_name) throw ApiError.missing(`${at}[file_name]`);
    }
    if (it.file_id !== undefined && onPost) throw ApiError.malformed(`${at}[file_id]`, 'send the file itself as file_data on POST');
    if (it.children?.length) validateItems(tree, it.children, onPost, `${at}[children]`, it.competence_id);
  });
}

/** Every item, depth first, with its parameter path. */
export function* walkItems(items: SurveyItem[], path = 'data[items]'): Generator<[SurveyItem, string]> {
  for (const [i, it] of items.entries()) {
    yield [it, `${path}[${i}]`];
    if (it.children) yield* walkItems(it.children, `${path}[${i}][children]`);
  }
}
