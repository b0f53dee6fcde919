/**
 * Conversion factors of the impact report (docs/analytics.md gives the sources and how to read them).
 * They turn the grams of food that found an eater into meals and greenhouse gas avoided.
 */
export const IMPACT_FACTORS = {
  /**
   * One meal equivalent = 420 g of food: the factor WRAP recommends (2018, Courtauld 2025
   * redistribution working group) for reporting surplus food redistributed as meals.
   */
  gramsPerMeal: 420,
  /**
   * 2.5 kg CO2e per kg of food saved: FAO, "Food Wastage Footprint: Impacts on Natural Resources"
   * (2013): 3.3 Gt CO2e a year (land-use change excluded) for 1.3 Gt of food lost or wasted, i.e.
   * 2.54 kg CO2e per kg, rounded down.
   */
  co2eKgPerKgFood: 2.5,
} as const;

/** Food and greenhouse gas from grams: kilograms to the gram, meals whole, CO2e to 0.1 kg. */
export function impactOf(foodGrams: number) {
  return {
    foodKg: Math.round(foodGrams) / 1000,
    meals: Math.floor(foodGrams / IMPACT_FACTORS.gramsPerMeal),
    co2eKg: Math.round((foodGrams / 1000) * IMPACT_FACTORS.co2eKgPerKgFood * 10) / 10,
  };
}
