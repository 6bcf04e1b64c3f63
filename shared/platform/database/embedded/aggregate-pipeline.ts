// Prepares an aggregation pipeline for mingo: splits off the leading $match stages (so the
// collection's planner can use its indexes for them) and rewrites what mingo answers
// differently from the server.
import type { Document } from 'mongodb';
import { isPlainObject } from './document-values.js';
import { EmbeddedServerError, ErrorCode } from './errors.js';

export interface PreparedPipeline {
  /** Filter equivalent to the leading $match stages ({} when there are none). */
  filter: Document;
  /** The remaining stages, for mingo. */
  stages: Document[];
}

function assertStages(pipeline: unknown): Document[] {
  if (!Array.isArray(pipeline) || !pipeline.every((s) => isPlainObject(s) && Object.keys(s).length === 1)) {
    throw new EmbeddedServerError(ErrorCode.BadValue, 'aggregate: a pipeline is an array of single-operator stages');
  }
  return pipeline as Document[];
}

/**
 * mingo's $count yields `{n: 0}` for no input, the server yields no document. The server
 * documents $count as this $group + $project, which mingo evaluates the server's way.
 */
function rewrite(stages: Document[]): Document[] {
  return stages.flatMap((stage): Document[] => {
    if ('$out' in stage || '$merge' in stage) {
      throw new EmbeddedServerError(ErrorCode.BadValue, 'aggregate: $out and $merge are not supported by the embedded database');
    }
    if (typeof stage.$count === 'string') return [{ $group: { _id: null, [stage.$count]: { $sum: 1 } } }, { $project: { _id: 0 } }];
    if (isPlainObject(stage.$facet)) {
      const facets: Record<string, Document[]> = {};
      for (const [name, sub] of Object.entries(stage.$facet)) facets[name] = rewrite(assertStages(sub));
      return [{ $facet: facets }];
    }
    return [stage];
  });
}

export function preparePipeline(pipeline: unknown): PreparedPipeline {
  const stages = assertStages(pipeline);
  const matches: Document[] = [];
  let first = 0;
  while (first < stages.length && '$match' in (stages[first] as Document)) matches.push((stages[first++] as Document).$match as Document);
  const filter = matches.length === 0 ? {} : matches.length === 1 ? (matches[0] as Document) : { $and: matches };
  return { filter, stages: rewrite(stages.slice(first)) };
}
