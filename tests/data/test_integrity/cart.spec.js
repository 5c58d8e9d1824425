const { expect } = require("chai");
const assert = require("node:assert/strict");
const { Cart, Item } = require("../lib/cart");

describe("Cart (mocha)", function () {
  let cart;

  beforeEach(function () {
    cart = new Cart();
  });

  it("totals the items", function () {
    cart.add(new Item("pen", 150));
    cart.add(new Item("ink", 350));
    expect(cart.totalCents()).to.equal(500);
  });

  it("applies a fixed code", function () {
    cart.add(new Item("pen", 1500));
    cart.apply("FIVEOFF");
    assert.equal(cart.totalCents(), 1000);
  });

  context("when empty", function () {
    it("has no total", function () {
      assert.strictEqual(cart.totalCents(), 0);
    });
  });
});
