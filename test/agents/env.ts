import { afterEach } from 'vitest';

/** Sets DEVELOPMENT_MODE for one test and puts the previous value back after it. */
export function useDevelopmentModeSwitch(): (on: boolean) => void {
  const saved = process.env['DEVELOPMENT_MODE'];
  afterEach(() => {
    if (saved === undefined) delete process.env['DEVELOPMENT_MODE'];
    else process.env['DEVELOPMENT_MODE'] = saved;
  });
  return (on) => {
    if (on) process.env['DEVELOPMENT_MODE'] = 'true';
    else delete process.env['DEVELOPMENT_MODE'];
  };
}
