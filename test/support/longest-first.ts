import { createHash } from 'node:crypto';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { LONGEST_FILES } from '../tiers.ts';

/**
 * vitest's order (projects apart, files that failed or took longest in an earlier run first, else
 * larger files first), with the files test/tiers.ts names as the longest moved to the front in its
 * order: a long file started last would run alone at the end of the run.
 *
 * With TEST_FILE_ORDER_SEED=N, the files in an order the seed decides instead, so a file that passes
 * only after another shows (CONTRIBUTING.md, "Tests"). `--sequence.shuffle --sequence.seed=N` does
 * the same and also shuffles the tests inside each file, several of which build on the one before
 * by design. (vitest shuffles files itself only when no sequencer is configured.)
 */
export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const { shuffle, seed: shuffleSeed } = this.ctx.config.sequence;
    const seed = process.env['TEST_FILE_ORDER_SEED'] ?? (shuffle ? shuffleSeed : undefined);
    if (seed !== undefined) {
      // The same seed gives the same order on any checkout: the paths are relative to the root.
      const place = (spec: TestSpecification) =>
        createHash('sha256')
          .update(`${seed} ${spec.project.name} ${relative(this.ctx.config.root, spec.moduleId)}`)
          .digest('hex');
      return [...files].sort((a, b) => place(a).localeCompare(place(b)));
    }
    const ordered = await super.sort(files);
    const rank = (spec: TestSpecification) => {
      const at = LONGEST_FILES.findIndex((file) => spec.moduleId.endsWith(`/${file}`));
      return at < 0 ? LONGEST_FILES.length : at;
    };
    return ordered
      .map((spec, at) => ({ spec, at, rank: rank(spec) }))
      .sort((a, b) => a.rank - b.rank || a.at - b.at)
      .map(({ spec }) => spec);
  }
}
