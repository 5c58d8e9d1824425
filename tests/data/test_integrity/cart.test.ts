import { describe, it, test, expect, beforeEach } from "vitest";
import { Cart, Item } from "../src/cart";

function expectTotal(cart: Cart, cents: number): void {
  expect(cart.totalCents()).toBe(cents);
}

describe("Cart", () => {
  let cart: Cart;

  beforeEach(() => {
    cart = new Cart();
  });

  it("starts empty", () => {
    expect(cart.items()).toEqual([]);
    expectTotal(cart, 0);
  });

  it("adds items", () => {
    cart.add(new Item("book", 4000));
    expect(cart.items()).toHaveLength(1);
    expectTotal(cart, 4000);
  });

  it("applies a percentage code", () => {
    cart.add(new Item("book", 4000));
    cart.apply("SAVE10");
    expect(cart.totalCents()).toBe(3600);
    expect(cart.discountCents()).toBe(400);
  });

  test.each([
    ["SAVE10", 3600],
    ["SAVE20", 3200],
  ])("code %s gives %i", (code, cents) => {
    cart.add(new Item("book", 4000));
    cart.apply(code as string);
    expect(cart.totalCents()).toBe(cents);
  });

  it("rejects an unknown code", () => {
    expect(() => cart.apply("NOPE")).toThrow(/unknown code/);
  });
});
