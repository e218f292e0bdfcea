//! Agreement of the `alu::approx` models with the H200 measurements, per raw section:
//! `cargo run -p ptxsim-exec --example approx_report [FILTER]`. Prints
//! `section<TAB>count<TAB>equal<TAB>fraction<TAB>max ulp<TAB>worst input` (max ulp over
//! non-NaN GPU results).

#[path = "../tests/suite/approx_data/mod.rs"]
mod data;

fn main() {
    let filter = std::env::args().nth(1).unwrap_or_default();
    let mut raw = data::Raw::open();
    println!("# section\tcount\tequal\tfraction\tmax_ulp\tworst");
    for name in raw.names() {
        if !name.contains(&filter) || name.ends_with(".tsv") {
            continue;
        }
        let s = raw.section(&name);
        let bits = if s.form.ends_with("f64") {
            64
        } else if s.name.ends_with(".table") {
            16
        } else {
            32
        };
        let (mut equal, mut max_ulp, mut worst) = (0usize, 0u64, String::new());
        let mut count = 0usize;
        let mut check = |input: String, gpu: u64, model: u64| {
            count += 1;
            if gpu == model {
                equal += 1;
            }
            let d = data::ulp_diff(gpu, model, bits);
            if d > max_ulp {
                max_ulp = d;
                worst = format!("{input}: gpu {gpu:x} model {model:x}");
            }
        };
        if s.form.starts_with("div") {
            for ((a, b), y) in data::div_inputs(&s.inputs_spec, s.outputs.len())
                .iter()
                .zip(&s.outputs)
            {
                check(
                    format!("{a:08x}/{b:08x}"),
                    *y,
                    u64::from(data::eval_div(&s.form, *a, *b)),
                );
            }
        } else {
            for (x, y) in s.inputs.iter().zip(&s.outputs) {
                check(format!("{x:x}"), *y, data::eval(&s.form, *x).unwrap());
            }
        }
        println!(
            "{name}\t{count}\t{equal}\t{:.6}\t{max_ulp}\t{worst}",
            equal as f64 / count.max(1) as f64
        );
    }
}
