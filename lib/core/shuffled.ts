/** 0 … n−1 in random order (Fisher–Yates): racing claimants of n slots spread over them instead of all fighting for slot 0. */
export function shuffled(n: number): number[] {
  const order = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order;
}
