/** See alert-bodies.mjs. */
export function alertBodies(spec: { count: number; perDelivery: number; offset: number }): Buffer[];
