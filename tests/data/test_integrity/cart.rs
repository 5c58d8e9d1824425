//! A shopping cart.

pub struct Cart {
    items: Vec<(String, u64)>,
    discount_percent: u64,
}

impl Cart {
    pub fn new() -> Self {
        Cart { items: Vec::new(), discount_percent: 0 }
    }

    pub fn add(&mut self, name: &str, cents: u64) {
        assert!(cents > 0, "an item has a price");
        self.items.push((name.to_string(), cents));
    }

    pub fn apply(&mut self, code: &str) -> Result<(), String> {
        match code {
            "SAVE10" => self.discount_percent = 10,
            "SAVE20" => self.discount_percent = 20,
            _ => return Err(format!("unknown code {code}")),
        }
        Ok(())
    }

    pub fn total_cents(&self) -> u64 {
        let sum: u64 = self.items.iter().map(|(_, c)| c).sum();
        sum - sum * self.discount_percent / 100
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn book_cart() -> Cart {
        let mut cart = Cart::new();
        cart.add("book", 4000);
        cart
    }

    fn assert_total(cart: &Cart, cents: u64) {
        assert_eq!(cart.total_cents(), cents, "total of the cart");
    }

    #[test]
    fn empty_cart_totals_zero() {
        assert_eq!(Cart::new().total_cents(), 0);
    }

    #[test]
    fn applies_percentage_code() {
        let mut cart = book_cart();
        cart.apply("SAVE10").unwrap();
        assert_total(&cart, 3600);
    }

    #[test]
    fn rejects_unknown_code() {
        let mut cart = book_cart();
        let err = cart.apply("NOPE").unwrap_err();
        assert!(err.contains("unknown code"));
        assert_eq!(cart.total_cents(), 4000);
    }

    #[test]
    #[should_panic(expected = "an item has a price")]
    fn free_items_are_refused() {
        Cart::new().add("air", 0);
    }
}
